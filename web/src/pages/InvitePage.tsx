import { useEffect, useState } from 'react';
import { ApiError, messageOf, post } from '../api/client';
import type { Role, Session } from '../api/types';
import { Banner, Button, Loading, TextField } from '../components/ui';
import { ROLE_NAMES } from '../roles';
import { navigate } from '../router';
import { useSession } from '../session';
import { AuthFrame } from './AuthPages';

interface InviteDetails {
  orgName: string;
  email: string;
  role: Role;
  expiresAt: string;
}

/**
 * The invite's accept page (`/#/invite/{token}`): a new person chooses a password; someone who already has
 * an account logs in here (the ordinary log-in, with its limits) and joins from that session. The page
 * is not told which of the two the email is: the person knows.
 */
export function InvitePage({ token }: { token: string }) {
  const { session, setSession } = useSession();
  const [details, setDetails] = useState<InviteDetails | null>();
  const [failure, setFailure] = useState<string>();
  const [password, setPassword] = useState('');
  const [hasAccount, setHasAccount] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    post<InviteDetails>('/invites/inspect', { token })
      .then(setDetails)
      .catch((error: unknown) => {
        setDetails(null);
        setFailure(messageOf(error));
      });
  }, [token]);

  if (details === undefined) return <Loading label="Opening the invite" />;
  if (details === null)
    return (
      <AuthFrame title="This invite does not work">
        <Banner>{failure}</Banner>
      </AuthFrame>
    );
  const signedInAsInvitee = session?.user.email === details.email;
  const accept = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      if (signedInAsInvitee) {
        setSession(await post<Session>('/invites/accept', { token }));
      } else if (hasAccount) {
        await post<Session>('/auth/login', { email: details.email, password });
        setSession(await post<Session>('/invites/accept', { token }));
      } else {
        setSession(await post<Session>('/invites/accept', { token, password }));
      }
      navigate('/links');
    } catch (error) {
      if (!hasAccount && !signedInAsInvitee && error instanceof ApiError && error.status === 401) {
        setHasAccount(true);
        setPassword('');
        setFailure(`${details.email} already has a linkhop account: log in with its password to join.`);
      } else setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthFrame title={`Join ${details.orgName}`}>
      <p>
        You are invited as <strong>{ROLE_NAMES[details.role].toLowerCase()}</strong>, with{' '}
        <strong>{details.email}</strong>.
      </p>
      {failure ? <Banner>{failure}</Banner> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void accept();
        }}
      >
        {signedInAsInvitee ? null : (
          <TextField
            label={hasAccount ? 'Your linkhop password' : 'Choose a password'}
            hint={hasAccount ? undefined : 'At least 8 characters.'}
            type="password"
            autoComplete={hasAccount ? 'current-password' : 'new-password'}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        )}
        <Button type="submit" variant="primary" busy={busy}>
          Join {details.orgName}
        </Button>
      </form>
      {signedInAsInvitee ? null : (
        <p className="auth-switch">
          <button type="button" className="link-button" onClick={() => setHasAccount(!hasAccount)}>
            {hasAccount
              ? 'New to linkhop? Choose a password instead'
              : 'Already have a linkhop account? Log in'}
          </button>
        </p>
      )}
    </AuthFrame>
  );
}
