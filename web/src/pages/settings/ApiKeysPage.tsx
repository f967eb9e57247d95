import { useState } from 'react';
import { del, post } from '../../api/client';
import type { ApiKey } from '../../api/types';
import { ConfirmDialog, useWrite } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  EmptyState,
  formatDate,
  formatDateTime,
  Loading,
  PageHeader,
  TableHead,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { OnceSecret } from './OnceSecret';
import './settings.css';

interface MintedKey {
  id: string;
  apiKey: string;
  note: string;
}

/** Live keys first, then newest first. */
function byStatusThenAge(a: ApiKey, b: ApiKey): number {
  return (
    Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt)
  );
}

export function ApiKeysPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const allowed = session.features.api;
  const keys = useApi<{ keys: ApiKey[] }>('/keys');
  const [minted, setMinted] = useState<MintedKey | null>(null);
  const [notice, setNotice] = useState<string>();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const creating = useWrite();

  const list = [...(keys.data?.keys ?? [])].sort(byStatusThenAge);

  const create = () =>
    void creating.run(async () => {
      setNotice(undefined);
      setMinted(await post<MintedKey>('/keys'));
      await keys.reload();
    });

  const revoke = async (key: ApiKey) => {
    await del(`/keys/${encodeURIComponent(key.id)}`);
    // A revoked key must not stay on screen as if it were usable.
    if (minted?.id === key.id) setMinted(null);
    await keys.reload();
    setNotice(`Key ${key.prefix}… is revoked. Requests that use it now get 401.`);
  };

  return (
    <div className="settings-page">
      <PageHeader
        title="API keys"
        subtitle="Keys let your scripts and tools use the linkhop API on behalf of this workspace."
        actions={
          allowed ? (
            <Button variant="primary" busy={creating.busy} onClick={create}>
              Create key
            </Button>
          ) : null
        }
      />
      {allowed ? null : <UpgradeNotice feature="api" />}
      {creating.error ? <Banner>{creating.error}</Banner> : null}
      {notice ? <Banner kind="success">{notice}</Banner> : null}

      {minted ? (
        <OnceSecret
          title="Your new API key"
          warning={
            <>
              <strong>Copy this key now: it will not be shown again.</strong> linkhop keeps only a hash of it.
              If you lose it, revoke it and create another.
            </>
          }
          secret={minted.apiKey}
          testId="new-key"
          copyLabel="Copy key"
          onDone={() => setMinted(null)}
        />
      ) : null}

      <Card
        title="Keys"
        actions={<span className="count-pill">{list.filter((k) => !k.revokedAt).length} active</span>}
      >
        {keys.error ? <Banner>{keys.error}</Banner> : null}
        {!keys.data ? (
          keys.error ? null : (
            <Loading label="Loading keys" />
          )
        ) : list.length === 0 ? (
          <EmptyState title="No API keys yet">
            <p>
              {allowed ? 'Create a key to call the API from your own code.' : 'The API is part of Legend.'}
            </p>
          </EmptyState>
        ) : (
          <KeysTable keys={list} newId={minted?.id} onRevoke={setRevoking} />
        )}
      </Card>

      <UsingAKey />

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          if (revoking) await revoke(revoking);
        }}
      >
        <p>
          Key <code>{revoking?.prefix}…</code> stops working on the very next request: anything still using it
          gets <strong>401 Unauthorized</strong>. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function KeysTable({
  keys,
  newId,
  onRevoke,
}: {
  keys: ApiKey[];
  /** The key minted on this visit, marked New. */
  newId: string | undefined;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <div className="table-wrap">
      <table>
        <TableHead columns={['Key', 'Created', 'Status']} />
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>
                <code>{key.prefix}…</code> {newId === key.id ? <Badge tone="brand">New</Badge> : null}
              </td>
              <td>{formatDateTime(key.createdAt)}</td>
              <td className="key-status">
                {key.revokedAt ? (
                  <Badge tone="bad">Revoked {formatDate(key.revokedAt)}</Badge>
                ) : (
                  <Badge tone="good">Active</Badge>
                )}
              </td>
              <td>
                <div className="row-actions">
                  {key.revokedAt ? null : (
                    <Button
                      variant="danger"
                      className="btn-small"
                      aria-label={`Revoke key ${key.prefix}`}
                      onClick={() => onRevoke(key)}
                    >
                      Revoke
                    </Button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function UsingAKey() {
  return (
    <Card title="Using a key">
      <p>
        Send the key as a bearer token on every <code>/v1</code> request. This call checks it and answers your
        workspace’s plan:
      </p>
      <pre className="code-block">
        <code>{`curl -H "Authorization: Bearer svc_…" ${window.location.origin}/v1/me`}</code>
      </pre>
      <p className="muted">
        Up to 120 requests per minute per key. Every endpoint, with request and response shapes, is in the{' '}
        <a href="/docs" target="_blank" rel="noreferrer">
          API reference
        </a>
        .
      </p>
    </Card>
  );
}
