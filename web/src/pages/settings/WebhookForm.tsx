import { useState } from 'react';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../../src/webhooks/events.js';
import { ApiError, post } from '../../api/client';
import type { CreatedWebhook } from '../../api/types';
import { useWrite, WriteForm } from '../../components/confirm';
import { Button, TextField } from '../../components/ui';

type EventName = WebhookEvent;

const EVENT_HELP: Record<EventName, string> = {
  'link.created': 'A link is created (dashboard, app or API)',
  'link.updated': 'A link is edited',
  'link.archived': 'A link is archived',
  'link.expired': 'A link reaches its end date or click limit',
  'link.destination_down': 'A link’s destination stops answering (it is checked now and then)',
  'link.destination_up': 'A link’s destination that was down answers again',
  'app.opened': 'A tap opened the native app',
  'app.browser': 'A tap stayed in the browser',
  'app.broken': 'A hand-off to the app failed',
  'contact.captured': 'A new email arrives through the fallback page',
};

/**
 * The server's refusals at the two fields: `url` (its Zod issue, or `invalid_webhook_url` for a private or
 * non-https address) and `events` (any `events.N` issue). Anything else goes to the form's banner.
 */
function webhookFieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const fields = err.fieldErrors();
  if (err.code === 'invalid_webhook_url') fields.url ??= err.message;
  const eventsKey = Object.keys(fields).find((key) => key.startsWith('events'));
  return {
    ...(fields.url ? { url: fields.url } : {}),
    ...(eventsKey ? { events: fields[eventsKey] ?? '' } : {}),
  };
}

/** A new endpoint: its URL and the events it hears. The signing secret comes back once, to `onCreated`. */
export function WebhookForm({ onCreated }: { onCreated: (hook: CreatedWebhook) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>([]);
  const submit = useWrite(webhookFieldErrors);
  const { errors } = submit;
  const all = events.length === WEBHOOK_EVENTS.length;

  const create = () =>
    submit.run(async () => {
      const hook = await post<CreatedWebhook>('/webhooks', { url: url.trim(), events });
      setUrl('');
      setEvents([]);
      await onCreated(hook);
    });

  const toggle = (name: EventName, on: boolean) =>
    setEvents((current) => (on ? [...current, name] : current.filter((item) => item !== name)));

  return (
    <WriteForm
      write={submit}
      onSubmit={() => void create()}
      submitLabel="Add webhook"
      actions={
        <Button variant="ghost" onClick={() => setEvents(all ? [] : [...WEBHOOK_EVENTS])}>
          {all ? 'Clear all events' : 'Select all events'}
        </Button>
      }
    >
      <TextField
        label="Endpoint URL"
        type="url"
        inputMode="url"
        placeholder="https://example.com/hooks/linkhop"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        error={errors.url}
        hint="Must be https:// and publicly reachable. Each delivery is one POST with a 5-second timeout."
        required
      />
      <fieldset
        className={errors.events ? 'fieldset-invalid' : undefined}
        aria-describedby={errors.events ? 'webhook-events-error' : undefined}
      >
        <legend>Events</legend>
        <div className="event-grid">
          {WEBHOOK_EVENTS.map((name) => (
            <label key={name} className="event-option">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(event) => toggle(name, event.target.checked)}
              />
              <code>{name}</code>
              <small>{EVENT_HELP[name]}</small>
            </label>
          ))}
        </div>
        {errors.events ? (
          <p className="field-error" id="webhook-events-error" role="alert">
            {errors.events}
          </p>
        ) : null}
      </fieldset>
    </WriteForm>
  );
}
