import { useState } from 'react';
import { del, messageOf, post } from '../../api/client';
import type { ApiKey } from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  CopyButton,
  EmptyState,
  formatDate,
  formatDateTime,
  Loading,
  Modal,
  PageHeader,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import './settings.css';

interface MintedKey {
  id: string;
  apiKey: string;
  note: string;
}

export function ApiKeysPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const allowed = session.features.api;
  const keys = useApi<{ keys: ApiKey[] }>('/keys');
  const [minted, setMinted] = useState<MintedKey | null>(null);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [busyRevoke, setBusyRevoke] = useState(false);
  const [revokeError, setRevokeError] = useState<string>();

  const list = [...(keys.data?.keys ?? [])].sort(
    (a, b) =>
      Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt),
  );
  const base = window.location.origin;

  async function create() {
    setCreating(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const key = await post<MintedKey>('/keys');
      setMinted(key);
      await keys.reload();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setCreating(false);
    }
  }

  async function revoke(key: ApiKey) {
    setBusyRevoke(true);
    setRevokeError(undefined);
    try {
      await del(`/keys/${encodeURIComponent(key.id)}`);
      setRevoking(null);
      if (minted?.id === key.id) setMinted(null);
      setNotice(`Key ${key.prefix}… is revoked. Requests that use it now get 401.`);
      await keys.reload();
    } catch (err) {
      setRevokeError(messageOf(err));
    } finally {
      setBusyRevoke(false);
    }
  }

  return (
    <div className="settings-page">
      <PageHeader
        title="API keys"
        subtitle="Keys let your scripts and tools use the linkhop API on behalf of this workspace."
        actions={
          allowed ? (
            <Button variant="primary" busy={creating} onClick={() => void create()}>
              Create key
            </Button>
          ) : null
        }
      />
      {allowed ? null : <UpgradeNotice feature="api" />}
      {error ? <Banner>{error}</Banner> : null}
      {notice ? <Banner kind="success">{notice}</Banner> : null}

      {minted ? (
        <Card title="Your new API key" className="once">
          <Banner kind="warning">
            <strong>Copy this key now: it will not be shown again.</strong> linkhop keeps only a hash of it.
            If you lose it, revoke it and create another.
          </Banner>
          <div className="secret-box" data-testid="new-key">
            <code>{minted.apiKey}</code>
            <CopyButton text={minted.apiKey} label="Copy key" />
          </div>
          <div className="form-actions">
            <Button variant="secondary" onClick={() => setMinted(null)}>
              I have saved it
            </Button>
          </div>
        </Card>
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
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((key) => (
                  <tr key={key.id}>
                    <td>
                      <code>{key.prefix}…</code>{' '}
                      {minted?.id === key.id ? <Badge tone="brand">New</Badge> : null}
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
                            onClick={() => {
                              setRevokeError(undefined);
                              setRevoking(key);
                            }}
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
        )}
      </Card>

      <Card title="Using a key">
        <p>
          Send the key as a bearer token on every <code>/v1</code> request. This call checks it and answers
          your workspace’s plan:
        </p>
        <pre className="code-block">
          <code>{`curl -H "Authorization: Bearer svc_…" ${base}/v1/me`}</code>
        </pre>
        <p className="muted">
          Up to 120 requests per minute per key. Every endpoint, with request and response shapes, is in the{' '}
          <a href="/docs" target="_blank" rel="noreferrer">
            API reference
          </a>
          .
        </p>
      </Card>

      <Modal open={revoking !== null} title="Revoke this key?" onClose={() => setRevoking(null)}>
        {revoking ? (
          <>
            <p>
              Key <code>{revoking.prefix}…</code> stops working on the very next request: anything still using
              it gets <strong>401 Unauthorized</strong>. This cannot be undone.
            </p>
            {revokeError ? <Banner>{revokeError}</Banner> : null}
            <div className="form-actions">
              <Button variant="danger" busy={busyRevoke} onClick={() => void revoke(revoking)}>
                Revoke key
              </Button>
              <Button variant="secondary" onClick={() => setRevoking(null)}>
                Cancel
              </Button>
            </div>
          </>
        ) : null}
      </Modal>
    </div>
  );
}
