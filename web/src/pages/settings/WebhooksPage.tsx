import { type FormEvent, useState } from 'react';
import { ApiError, del, messageOf, patch, post } from '../../api/client';
import type { CreatedWebhook, Webhook } from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  CopyButton,
  EmptyState,
  formatDateTime,
  Loading,
  Modal,
  PageHeader,
  TextField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import './settings.css';

/** The server's list (src/webhooks/schema.ts), copied: importing that module would bundle Zod. */
const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.archived',
  'app.opened',
  'app.browser',
  'app.broken',
  'contact.captured',
] as const;
const MAX_WEBHOOKS_PER_ORG = 5;
type EventName = (typeof WEBHOOK_EVENTS)[number];

const EVENT_HELP: Record<EventName, string> = {
  'link.created': 'A link is created (dashboard, app or API)',
  'link.updated': 'A link is edited',
  'link.archived': 'A link is archived',
  'app.opened': 'A tap opened the native app',
  'app.browser': 'A tap stayed in the browser',
  'app.broken': 'A hand-off to the app failed',
  'contact.captured': 'A new email arrives through the fallback page',
};

const VERIFY = `import { createHmac, timingSafeEqual } from 'node:crypto';

// rawBody: the request body exactly as received (a Buffer), before JSON.parse
function verify(rawBody, signatureHeader, secret) {
  const expected = createHmac('sha256', secret).update(rawBody).digest('hex');
  const given = Buffer.from(String(signatureHeader), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, Buffer.from(expected, 'utf8'));
}`;

export function WebhooksPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const allowed = session.features.webhooks;
  const hooks = useApi<{ webhooks: Webhook[] }>('/webhooks');
  const list = hooks.data?.webhooks ?? [];
  const full = list.length >= MAX_WEBHOOKS_PER_ORG;

  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>([]);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [notice, setNotice] = useState<string>();
  const [rowError, setRowError] = useState<string>();
  const [busyId, setBusyId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);

  async function create(event: FormEvent) {
    event.preventDefault();
    setFieldErrors({});
    setFormError(undefined);
    setNotice(undefined);
    setCreating(true);
    try {
      const hook = await post<CreatedWebhook>('/webhooks', { url: url.trim(), events });
      setCreated(hook);
      setUrl('');
      setEvents([]);
      await hooks.reload();
    } catch (err) {
      if (err instanceof ApiError) {
        const fields = err.fieldErrors();
        if (err.code === 'invalid_webhook_url') fields.url ??= err.message;
        const known = Object.keys(fields).filter((key) => key === 'url' || key.startsWith('events'));
        if (known.length > 0) {
          setFieldErrors({
            ...(fields.url ? { url: fields.url } : {}),
            ...(known.some((key) => key.startsWith('events'))
              ? { events: fields[known.find((key) => key.startsWith('events')) ?? 'events'] ?? '' }
              : {}),
          });
        } else setFormError(err.message);
      } else setFormError(messageOf(err));
    } finally {
      setCreating(false);
    }
  }

  async function setActive(hook: Webhook, active: boolean) {
    setBusyId(hook.id);
    setRowError(undefined);
    setNotice(undefined);
    try {
      const updated = await patch<Webhook>(`/webhooks/${encodeURIComponent(hook.id)}`, { active });
      hooks.setData({ webhooks: list.map((item) => (item.id === hook.id ? updated : item)) });
      setNotice(active ? 'Deliveries resumed.' : 'Paused: no deliveries are sent until you resume it.');
    } catch (err) {
      setRowError(messageOf(err));
    } finally {
      setBusyId(null);
    }
  }

  async function remove(hook: Webhook) {
    setBusyId(hook.id);
    setRowError(undefined);
    try {
      await del(`/webhooks/${encodeURIComponent(hook.id)}`);
      setDeleting(null);
      if (created?.id === hook.id) setCreated(null);
      setNotice('Webhook deleted.');
      await hooks.reload();
    } catch (err) {
      setRowError(messageOf(err));
      setDeleting(null);
    } finally {
      setBusyId(null);
    }
  }

  const toggle = (name: EventName, on: boolean) =>
    setEvents((current) => (on ? [...current, name] : current.filter((item) => item !== name)));

  return (
    <div className="settings-page">
      <PageHeader
        title="Webhooks"
        subtitle="linkhop POSTs a signed JSON event to your endpoint when links change and when taps report how they ended."
      />
      {allowed ? null : <UpgradeNotice feature="webhooks" />}
      {notice ? <Banner kind="success">{notice}</Banner> : null}
      {rowError ? <Banner>{rowError}</Banner> : null}

      {created ? (
        <Card title="Your signing secret" className="once">
          <Banner kind="warning">
            <strong>Store this secret now: it will not be shown again.</strong> It signs every delivery to{' '}
            <code>{created.url}</code>.
          </Banner>
          <div className="secret-box" data-testid="signing-secret">
            <code>{created.secret}</code>
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
          <p>
            <strong>Verify each delivery</strong>: the <code>x-service-signature</code> header is the
            lowercase hex HMAC-SHA256 of the raw request body, keyed with this secret. Compute it over the
            bytes you received, before parsing the JSON, and compare in constant time:
          </p>
          <pre className="code-block">
            <code>{VERIFY}</code>
          </pre>
          <div className="form-actions">
            <Button variant="secondary" onClick={() => setCreated(null)}>
              I have saved it
            </Button>
          </div>
        </Card>
      ) : null}

      <Card
        title="Endpoints"
        actions={
          <span className="count-pill">
            {list.length} of {MAX_WEBHOOKS_PER_ORG} used
          </span>
        }
      >
        {hooks.error ? <Banner>{hooks.error}</Banner> : null}
        {!hooks.data ? (
          hooks.error ? null : (
            <Loading label="Loading webhooks" />
          )
        ) : list.length === 0 ? (
          <EmptyState title="No webhooks yet">
            <p>
              {allowed
                ? 'Add an endpoint below to get events as they happen.'
                : 'With Legend, your own server hears about every link change and tap outcome.'}
            </p>
          </EmptyState>
        ) : (
          <ul className="hook-list">
            {list.map((hook) => (
              <li key={hook.id} className="hook" data-webhook={hook.id}>
                <div>
                  <div className="hook-url">
                    <span>{hook.url}</span>
                    {hook.active ? <Badge tone="good">Active</Badge> : <Badge>Paused</Badge>}
                    {hook.failCount > 0 ? (
                      <Badge tone="warn">
                        {hook.failCount} failed {hook.failCount === 1 ? 'delivery' : 'deliveries'}
                      </Badge>
                    ) : null}
                  </div>
                  <ul className="hook-events" aria-label="Events">
                    {hook.events.map((name) => (
                      <li key={name}>
                        <Badge tone="brand">{name}</Badge>
                      </li>
                    ))}
                  </ul>
                  <div className="hook-meta">
                    <span>
                      Last delivered: {hook.lastDeliveredAt ? formatDateTime(hook.lastDeliveredAt) : 'never'}
                    </span>
                    <span>Added {formatDateTime(hook.createdAt)}</span>
                  </div>
                </div>
                <div className="row-actions">
                  {hook.active ? (
                    <Button
                      className="btn-small"
                      busy={busyId === hook.id}
                      aria-label={`Pause ${hook.url}`}
                      onClick={() => void setActive(hook, false)}
                    >
                      Pause
                    </Button>
                  ) : allowed ? (
                    <Button
                      className="btn-small"
                      busy={busyId === hook.id}
                      aria-label={`Resume ${hook.url}`}
                      onClick={() => void setActive(hook, true)}
                    >
                      Resume
                    </Button>
                  ) : null}
                  <Button
                    variant="danger"
                    className="btn-small"
                    aria-label={`Delete ${hook.url}`}
                    onClick={() => setDeleting(hook)}
                  >
                    Delete
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
        {!allowed && list.some((hook) => !hook.active) ? (
          <p className="hint">
            Resuming a paused endpoint needs Legend; pausing and deleting work on every plan.
          </p>
        ) : null}
      </Card>

      {allowed ? (
        <Card title="Add an endpoint">
          {full ? (
            <Banner kind="info">
              You have {MAX_WEBHOOKS_PER_ORG} webhooks, the most a workspace can have. Delete one to add
              another.
            </Banner>
          ) : (
            <form onSubmit={(event) => void create(event)} noValidate>
              {formError ? <Banner>{formError}</Banner> : null}
              <TextField
                label="Endpoint URL"
                type="url"
                inputMode="url"
                placeholder="https://example.com/hooks/linkhop"
                value={url}
                onChange={(event) => setUrl(event.target.value)}
                error={fieldErrors.url}
                hint="Must be https:// and publicly reachable. Each delivery is one POST with a 5-second timeout."
                required
              />
              <fieldset
                className={fieldErrors.events ? 'fieldset-invalid' : undefined}
                aria-describedby={fieldErrors.events ? 'webhook-events-error' : undefined}
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
                {fieldErrors.events ? (
                  <p className="field-error" id="webhook-events-error" role="alert">
                    {fieldErrors.events}
                  </p>
                ) : null}
              </fieldset>
              <div className="form-actions">
                <Button type="submit" variant="primary" busy={creating}>
                  Add webhook
                </Button>
                <Button
                  variant="ghost"
                  onClick={() =>
                    setEvents(events.length === WEBHOOK_EVENTS.length ? [] : [...WEBHOOK_EVENTS])
                  }
                >
                  {events.length === WEBHOOK_EVENTS.length ? 'Clear all events' : 'Select all events'}
                </Button>
              </div>
            </form>
          )}
        </Card>
      ) : null}

      <Modal open={deleting !== null} title="Delete this webhook?" onClose={() => setDeleting(null)}>
        {deleting ? (
          <>
            <p>
              <code className="mono">{deleting.url}</code> stops receiving events right away and its signing
              secret is destroyed. To pause deliveries instead, use Pause.
            </p>
            <div className="form-actions">
              <Button variant="danger" busy={busyId === deleting.id} onClick={() => void remove(deleting)}>
                Delete webhook
              </Button>
              <Button variant="secondary" onClick={() => setDeleting(null)}>
                Cancel
              </Button>
            </div>
          </>
        ) : null}
      </Modal>
    </div>
  );
}
