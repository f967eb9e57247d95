import { useState } from 'react';
import { del, patch } from '../../api/client';
import type { CreatedWebhook, Webhook } from '../../api/types';
import { ConfirmDialog, useWrite } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  EmptyState,
  formatDateTime,
  Loading,
  PageHeader,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { OnceSecret } from './OnceSecret';
import { WebhookForm } from './WebhookForm';
import './settings.css';

/** The server's cap (src/webhooks), shown before the form so nobody fills it in for a refusal. */
const MAX_WEBHOOKS_PER_ORG = 5;

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
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [notice, setNotice] = useState<string>();
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const toggle = useWrite();
  const [togglingId, setTogglingId] = useState<string | null>(null);

  const setActive = async (hook: Webhook, active: boolean) => {
    setTogglingId(hook.id);
    setNotice(undefined);
    await toggle.run(async () => {
      const updated = await patch<Webhook>(`/webhooks/${encodeURIComponent(hook.id)}`, { active });
      hooks.setData({ webhooks: list.map((item) => (item.id === hook.id ? updated : item)) });
      setNotice(active ? 'Deliveries resumed.' : 'Paused: no deliveries are sent until you resume it.');
    });
    setTogglingId(null);
  };

  const remove = async (hook: Webhook) => {
    await del(`/webhooks/${encodeURIComponent(hook.id)}`);
    // The secret belongs to the endpoint: once it is gone, so is the card showing it.
    if (created?.id === hook.id) setCreated(null);
    setNotice('Webhook deleted.');
    await hooks.reload();
  };

  return (
    <div className="settings-page">
      <PageHeader
        title="Webhooks"
        subtitle="linkhop POSTs a signed JSON event to your endpoint when links change and when taps report how they ended."
      />
      {allowed ? null : <UpgradeNotice feature="webhooks" />}
      {notice ? <Banner kind="success">{notice}</Banner> : null}
      {toggle.error ? <Banner>{toggle.error}</Banner> : null}

      {created ? (
        <OnceSecret
          title="Your signing secret"
          warning={
            <>
              <strong>Store this secret now: it will not be shown again.</strong> It signs every delivery to{' '}
              <code>{created.url}</code>.
            </>
          }
          secret={created.secret}
          testId="signing-secret"
          copyLabel="Copy secret"
          onDone={() => setCreated(null)}
        >
          <p>
            <strong>Verify each delivery</strong>: the <code>x-service-signature</code> header is the
            lowercase hex HMAC-SHA256 of the raw request body, keyed with this secret. Compute it over the
            bytes you received, before parsing the JSON, and compare in constant time:
          </p>
          <pre className="code-block">
            <code>{VERIFY}</code>
          </pre>
        </OnceSecret>
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
              <HookItem
                key={hook.id}
                hook={hook}
                canResume={allowed}
                busy={toggle.busy && togglingId === hook.id}
                onActive={(active) => void setActive(hook, active)}
                onDelete={() => setDeleting(hook)}
              />
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
          {list.length >= MAX_WEBHOOKS_PER_ORG ? (
            <Banner kind="info">
              You have {MAX_WEBHOOKS_PER_ORG} webhooks, the most a workspace can have. Delete one to add
              another.
            </Banner>
          ) : (
            <WebhookForm
              onCreated={async (hook) => {
                setNotice(undefined);
                setCreated(hook);
                await hooks.reload();
              }}
            />
          )}
        </Card>
      ) : null}

      <ConfirmDialog
        open={deleting !== null}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (deleting) await remove(deleting);
        }}
      >
        <p>
          <code className="mono">{deleting?.url}</code> stops receiving events right away and its signing
          secret is destroyed. To pause deliveries instead, use Pause.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function HookItem({
  hook,
  canResume,
  busy,
  onActive,
  onDelete,
}: {
  hook: Webhook;
  canResume: boolean;
  busy: boolean;
  onActive: (active: boolean) => void;
  onDelete: () => void;
}) {
  return (
    <li className="hook" data-webhook={hook.id}>
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
          <span>Last delivered: {hook.lastDeliveredAt ? formatDateTime(hook.lastDeliveredAt) : 'never'}</span>
          <span>Added {formatDateTime(hook.createdAt)}</span>
        </div>
      </div>
      <div className="row-actions">
        {hook.active || canResume ? (
          <Button
            className="btn-small"
            busy={busy}
            aria-label={`${hook.active ? 'Pause' : 'Resume'} ${hook.url}`}
            onClick={() => onActive(!hook.active)}
          >
            {hook.active ? 'Pause' : 'Resume'}
          </Button>
        ) : null}
        <Button variant="danger" className="btn-small" aria-label={`Delete ${hook.url}`} onClick={onDelete}>
          Delete
        </Button>
      </div>
    </li>
  );
}
