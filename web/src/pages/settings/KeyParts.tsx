import { useState } from 'react';
import type { ApiKey } from '../../api/types';
import { type Write, WriteForm } from '../../components/confirm';
import { Badge, Button, Card, formatDate, formatDateTime, TableHead, TextField } from '../../components/ui';
import { KEY_SCOPES } from '../../roles';

/** The new-key form: a name, and either everything or the scopes ticked. */
export function NewKeyForm({
  write,
  onCreate,
}: {
  write: Write;
  onCreate: (input: { name: string; scopes: string[] }) => Promise<boolean>;
}) {
  const [name, setName] = useState('');
  const [everything, setEverything] = useState(true);
  const [scopes, setScopes] = useState<string[]>(['links:read']);
  const toggle = (scope: string, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));
  const submit = async () => {
    if (await onCreate({ name, scopes: everything ? ['all'] : scopes })) setName('');
  };
  return (
    <Card title="New key">
      <WriteForm write={write} onSubmit={() => void submit()} submitLabel="Create key">
        <TextField
          label="Name"
          hint="Say what will use it, so you know which key to revoke later."
          placeholder="e.g. Zapier"
          value={name}
          maxLength={100}
          error={write.errors.name}
          onChange={(event) => setName(event.target.value)}
        />
        <fieldset className="scopes">
          <legend>What the key may do</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={everything}
              onChange={(event) => setEverything(event.target.checked)}
            />
            Everything the API offers (<code>all</code>)
          </label>
          {everything ? null : (
            <div className="scope-grid">
              {KEY_SCOPES.map((scope) => (
                <label key={scope} className="check">
                  <input
                    type="checkbox"
                    checked={scopes.includes(scope)}
                    onChange={(event) => toggle(scope, event.target.checked)}
                  />
                  <code>{scope}</code>
                </label>
              ))}
            </div>
          )}
          {write.errors.scopes ? <p className="field-error">{write.errors.scopes}</p> : null}
        </fieldset>
      </WriteForm>
    </Card>
  );
}

export function KeysTable({
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
        <TableHead columns={['Name', 'Key', 'Scopes', 'Made by', 'Created', 'Last used', 'Status']} />
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>
                {key.name} {newId === key.id ? <Badge tone="brand">New</Badge> : null}
              </td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.scopes.join(', ')}</td>
              <td>{key.createdBy ? (key.createdBy.email ?? 'a former member') : 'The organization'}</td>
              <td>{formatDateTime(key.createdAt)}</td>
              <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'Never'}</td>
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

export function UsingAKey() {
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
        Up to 120 requests per minute per key. A call outside the key’s scopes gets{' '}
        <strong>403 forbidden_scope</strong>. Every endpoint, with request and response shapes, is in the{' '}
        <a href="/docs" target="_blank" rel="noreferrer">
          API reference
        </a>
        .
      </p>
    </Card>
  );
}
