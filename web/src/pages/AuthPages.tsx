import { type FormEvent, useState } from 'react';
import { Logo } from '../App';
import { ApiError, messageOf, post } from '../api/client';
import type { Session } from '../api/types';
import { Banner, Button, TextField } from '../components/ui';
import { navigate } from '../router';
import { useSession } from '../session';

function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <a className="brand" href="#/">
          <Logo /> linkhop
        </a>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** Posts the form, logs in with the session it answers, and keeps the failure for the page to show. */
function useAuthSubmit(path: string, form: object, describe: (error: unknown) => string) {
  const { setSession } = useSession();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setFailure(undefined);
    try {
      setSession(await post<Session>(path, form));
      navigate('/links');
    } catch (error) {
      // Zod issues go to their fields; anything else is one sentence above the form.
      if (error instanceof ApiError && error.body.issues) setErrors(error.fieldErrors());
      else setFailure(describe(error));
    } finally {
      setBusy(false);
    }
  }
  return { submit, busy, failure, errors };
}

export function SignupPage() {
  const [form, setForm] = useState({ orgName: '', email: '', password: '' });
  const { submit, busy, failure, errors } = useAuthSubmit('/auth/signup', form, messageOf);
  const set = (key: keyof typeof form) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [key]: event.target.value });

  return (
    <AuthFrame title="Create your workspace">
      <p className="muted">Free on Sidekick: 25 links, QR codes, a bio page and app-open tracking.</p>
      {failure ? <Banner>{failure}</Banner> : null}
      <form onSubmit={submit} noValidate>
        <TextField
          label="Workspace name"
          value={form.orgName}
          onChange={set('orgName')}
          error={errors.orgName}
          autoComplete="organization"
          required
        />
        <TextField
          label="Email"
          type="email"
          value={form.email}
          onChange={set('email')}
          error={errors.email}
          autoComplete="email"
          required
        />
        <TextField
          label="Password"
          type="password"
          value={form.password}
          onChange={set('password')}
          error={errors.password}
          hint="At least 8 characters."
          autoComplete="new-password"
          required
        />
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Create workspace
        </Button>
      </form>
      <p className="auth-switch">
        Already have an account? <a href="#/login">Log in</a>
      </p>
    </AuthFrame>
  );
}

export function LoginPage() {
  const [form, setForm] = useState({ email: '', password: '' });
  const { submit, busy, failure, errors } = useAuthSubmit('/auth/login', form, (error) =>
    error instanceof ApiError && error.status === 401
      ? 'That email and password do not match an account.'
      : messageOf(error),
  );

  return (
    <AuthFrame title="Log in">
      {failure ? <Banner>{failure}</Banner> : null}
      <form onSubmit={submit} noValidate>
        <TextField
          label="Email"
          type="email"
          value={form.email}
          onChange={(e) => setForm({ ...form, email: e.target.value })}
          error={errors.email}
          autoComplete="email"
          required
        />
        <TextField
          label="Password"
          type="password"
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
          error={errors.password}
          autoComplete="current-password"
          required
        />
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Log in
        </Button>
      </form>
      <p className="auth-switch">
        New to linkhop? <a href="#/signup">Create a workspace</a>
      </p>
    </AuthFrame>
  );
}
