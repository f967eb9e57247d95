import { useState } from 'react';
import { messageOf, post } from '../api/client';
import { Banner, Button, TextField } from '../components/ui';
import { currentPath, hashQuery } from '../router';
import { AuthFrame } from './AuthPages';

/** One field, one submit, and the server's answer (or refusal) in plain words. */
function useSubmit(path: string) {
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const submit = async (body: object, done: (reply: { message?: string }) => string) => {
    setBusy(true);
    setFailure(undefined);
    try {
      setAnswer(done(await post<{ message?: string }>(path, body)));
    } catch (error) {
      setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return { busy, answer, failure, submit };
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const { busy, answer, failure, submit } = useSubmit('/auth/password-reset');
  return (
    <AuthFrame title="Reset your password">
      {answer ? (
        <p role="status">{answer}</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit({ email }, (reply) => reply.message ?? '');
          }}
        >
          {failure ? <Banner>{failure}</Banner> : null}
          <TextField
            label="Email"
            type="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <Button type="submit" variant="primary" busy={busy} className="btn-block">
            Mail me a reset link
          </Button>
        </form>
      )}
      <p className="auth-switch">
        <a href="#/login">Back to log-in</a>
      </p>
    </AuthFrame>
  );
}

export function ResetPasswordPage() {
  const token = hashQuery(currentPath()).get('token') ?? '';
  const [password, setPassword] = useState('');
  const { busy, answer, failure, submit } = useSubmit('/auth/password-reset/confirm');
  return (
    <AuthFrame title="Choose a new password">
      {answer ? (
        <p role="status">
          {answer} <a href="#/login">Log in</a>
        </p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit(
              { token, password },
              () => 'Your password is changed, and every other session ended.',
            );
          }}
        >
          {failure ? <Banner>{failure}</Banner> : null}
          <TextField
            label="New password"
            hint="At least 8 characters."
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <Button type="submit" variant="primary" busy={busy} className="btn-block">
            Set the password
          </Button>
        </form>
      )}
    </AuthFrame>
  );
}
