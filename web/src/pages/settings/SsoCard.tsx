import { useEffect, useState } from 'react';
import { put } from '../../api/client';
import { useWrite, WriteForm } from '../../components/confirm';
import { Banner, Card, CopyButton, SelectField, TextField, Toggle } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';

/** GET/PUT /api/org/sso: the organization's OpenID provider (the secret is write-only). */
interface SsoConfig {
  issuer: string;
  clientId: string;
  hasSecret: boolean;
  allowedDomain: string;
  defaultRole: 'admin' | 'member' | 'viewer';
  requireSso: boolean;
  displayName: string;
  redirectUri: string;
}

const EMPTY = {
  issuer: '',
  clientId: '',
  clientSecret: '',
  allowedDomain: '',
  defaultRole: 'viewer' as SsoConfig['defaultRole'],
  requireSso: false,
  displayName: '',
};

/** Settings, owners only: connect an OpenID Connect provider so people of the company's domain sign in with it. */
export function SsoCard() {
  const session = useAuthed();
  const owner = session.role === 'owner';
  const loaded = useApi<SsoConfig>(owner ? '/org/sso' : null);
  const [form, setForm] = useState(EMPTY);
  const [saved, setSaved] = useState<SsoConfig>();
  const write = useWrite();
  const current = saved ?? loaded.data;
  useEffect(() => {
    if (loaded.data) setForm({ ...EMPTY, ...loaded.data, clientSecret: '' });
  }, [loaded.data]);
  if (!owner) return null;
  const submit = () =>
    void write.run(async () => {
      const { clientSecret, ...rest } = form;
      const answer = await put<SsoConfig>('/org/sso', clientSecret ? form : rest);
      setSaved(answer);
      setForm({ ...form, clientSecret: '' });
    });
  return (
    <Card title="Single sign-on">
      <p className="hint">
        People whose verified email is at your domain sign in with your OpenID Connect provider (Okta, Entra
        ID, Google Workspace…); a first sign-in joins this workspace with the role you choose.
      </p>
      {saved ? <Banner kind="success">Single sign-on saved.</Banner> : null}
      <WriteForm write={write} onSubmit={submit} submitLabel="Save single sign-on">
        <TextField
          label="Button label"
          hint="Shown on the log-in page: “Sign in with …”"
          value={form.displayName}
          error={write.errors.displayName}
          onChange={(event) => setForm({ ...form, displayName: event.target.value })}
        />
        <TextField
          label="Issuer URL"
          type="url"
          value={form.issuer}
          error={write.errors.issuer}
          onChange={(event) => setForm({ ...form, issuer: event.target.value })}
        />
        <TextField
          label="Client ID"
          value={form.clientId}
          error={write.errors.clientId}
          onChange={(event) => setForm({ ...form, clientId: event.target.value })}
        />
        <TextField
          label="Client secret"
          type="password"
          autoComplete="off"
          hint={current?.hasSecret ? 'Stored encrypted; leave empty to keep it.' : undefined}
          value={form.clientSecret}
          error={write.errors.clientSecret}
          onChange={(event) => setForm({ ...form, clientSecret: event.target.value })}
        />
        <TextField
          label="Email domain"
          hint="example.com: only verified addresses at this domain sign in."
          value={form.allowedDomain}
          error={write.errors.allowedDomain}
          onChange={(event) => setForm({ ...form, allowedDomain: event.target.value })}
        />
        <SelectField
          label="Role of a first sign-in"
          value={form.defaultRole}
          onChange={(event) =>
            setForm({ ...form, defaultRole: event.target.value as SsoConfig['defaultRole'] })
          }
        >
          <option value="viewer">Viewer</option>
          <option value="member">Member</option>
          <option value="admin">Admin</option>
        </SelectField>
        <Toggle
          label="Require single sign-on"
          hint="Members (not owners) can no longer log in with a password."
          checked={form.requireSso}
          onChange={(requireSso) => setForm({ ...form, requireSso })}
        />
      </WriteForm>
      {current ? (
        <p className="hint with-copy">
          Redirect URI to register with your provider: <code>{current.redirectUri}</code>
          <CopyButton text={current.redirectUri} label="Copy" />
        </p>
      ) : null}
    </Card>
  );
}
