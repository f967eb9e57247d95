import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, get, messageOf, post } from '../api/client';
import type { Features, Session, Tier } from '../api/types';
import { Logo } from '../components/logo';
import { Banner, Button, TextField } from '../components/ui';
import { currentPath, hashQuery, navigate } from '../router';
import { useSession } from '../session';
import { SsoLogin } from './SsoLogin';

export function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
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

/** Logs in with the session an answer carries and opens the links page. */
function useLogIn() {
  const { setSession } = useSession();
  return (session: Session) => {
    setSession(session);
    navigate('/links');
  };
}

/** Posts the form, hands the answer on, and keeps the failure for the page to show. */
function useAuthSubmit<T>(
  path: string,
  form: object,
  describe: (error: unknown) => string,
  onAnswer: (answer: T) => void,
) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setFailure(undefined);
    try {
      onAnswer(await post<T>(path, form));
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

/** GET /api/auth/signup: the plan a sign-up made now really gets, and where its confirmation link goes. */
interface SignupInfo {
  tier: Tier;
  planName: string;
  firstAccount: boolean;
  linkCap: number;
  features: Features;
  delivery: 'mail' | 'server_log';
}

/** What the plan gives, in the order a person cares about, from the features the server says it has. */
export function planPromise(info: SignupInfo): string {
  const { features } = info;
  const gets = [
    `${info.linkCap.toLocaleString('en-US')} links`,
    features.qrCodes && 'QR codes',
    features.linkInBio && 'a bio page',
    features.customSlugs && 'custom slugs',
    features.fullAnalytics && 'full analytics with app-open tracking',
    features.customDomains && 'your own domains',
    features.api && 'the API',
    features.webhooks && 'webhooks',
  ].filter((item): item is string => typeof item === 'string');
  const list = gets.length > 1 ? `${gets.slice(0, -1).join(', ')} and ${gets.at(-1)}` : (gets[0] ?? '');
  if (info.firstAccount)
    return `You are this server's first account, so your workspace is its operator's, on ${info.planName}: ${list}.`;
  return info.tier === 'sidekick' ? `Free on ${info.planName}: ${list}.` : `On ${info.planName}: ${list}.`;
}

export function SignupPage() {
  const [form, setForm] = useState({ orgName: '', email: '', password: '' });
  const [sent, setSent] = useState<{ message: string; delivery: SignupInfo['delivery'] }>();
  const [info, setInfo] = useState<SignupInfo>();
  useEffect(() => {
    // The promise is said only once the server has said what it is: a page never promises what it lacks.
    get<SignupInfo>('/auth/signup').then(setInfo, () => undefined);
  }, []);
  const { submit, busy, failure, errors } = useAuthSubmit<{
    message: string;
    delivery: SignupInfo['delivery'];
  }>('/auth/signup', form, messageOf, (answer) => setSent(answer));
  const set = (key: keyof typeof form) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [key]: event.target.value });

  // Without SMTP the server prints the link in its log: the person running it is the one signing up.
  if (sent?.delivery === 'server_log')
    return (
      <AuthFrame title="The confirmation link is in the server's log">
        <p role="status">{sent.message}</p>
        <p className="muted">
          Look for the line “Sign-up confirmation link for …” where linkhop is running, and open that link in
          this browser.
        </p>
        <Button type="button" variant="ghost" onClick={() => setSent(undefined)}>
          Back to the form
        </Button>
      </AuthFrame>
    );

  // The same answer whether or not the email has an account: the mailbox tells its owner which.
  if (sent)
    return (
      <AuthFrame title="Check your inbox">
        <p role="status">{sent.message}</p>
        <p className="muted">No mail after a few minutes? Look in your spam folder, or send it again.</p>
        <Button type="button" variant="ghost" onClick={() => setSent(undefined)}>
          Back to the form
        </Button>
      </AuthFrame>
    );

  return (
    <AuthFrame title="Create your workspace">
      {info ? (
        <p className="muted" data-testid="plan-promise">
          {planPromise(info)}
        </p>
      ) : null}
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
  // A member of a workspace that requires SSO is refused a password log-in: offer SSO with their email.
  const [ssoRequired, setSsoRequired] = useState(false);
  const logIn = useLogIn();
  const { submit, busy, failure, errors } = useAuthSubmit<Session>(
    '/auth/login',
    form,
    (error) => {
      if (error instanceof ApiError && error.code === 'sso_required') setSsoRequired(true);
      return error instanceof ApiError && error.status === 401
        ? 'That email and password do not match an account.'
        : messageOf(error);
    },
    logIn,
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
      <SsoLogin key={ssoRequired ? 'required' : 'offered'} email={form.email} open={ssoRequired} />
      <p className="auth-switch">
        <a href="#/forgot-password">Forgot your password?</a>
      </p>
      <p className="auth-switch">
        New to linkhop? <a href="#/signup">Create a workspace</a>
      </p>
    </AuthFrame>
  );
}

/** The mailed link's landing: confirms once, then logs in; a dead link says so and offers a new sign-up. */
export function ConfirmSignupPage() {
  const logIn = useLogIn();
  const [failure, setFailure] = useState<string>();
  // A link confirms once: a second post (a re-render, StrictMode) would find it used.
  const posted = useRef(false);
  useEffect(() => {
    if (posted.current) return;
    posted.current = true;
    const token = hashQuery(currentPath()).get('token') ?? '';
    post<Session>('/auth/signup/confirm', { token }).then(logIn, (error: unknown) =>
      setFailure(messageOf(error)),
    );
  }, [logIn]);
  if (!failure) return <AuthFrame title="Creating your workspace…">{null}</AuthFrame>;
  return (
    <AuthFrame title="This link does not work">
      <Banner>{failure}</Banner>
      <p className="auth-switch">
        <a href="#/signup">Sign up again</a> or <a href="#/login">log in</a>
      </p>
    </AuthFrame>
  );
}
