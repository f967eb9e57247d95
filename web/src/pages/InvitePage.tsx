import { useEffect, useState } from 'react';
import { messageOf, post } from '../api/client';
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
  existingUser: boolean;
}

/**
 * The invite's accept page (`/#/invite/{token}`): a new person chooses a password, an existing one is
 * already logged in as that email or types their password; either way they land in the workspace.
 */
export function InvitePage({ token }: { token: string }) {
  const { session, setSession } = useSession();
  const [details, setDetails] = useState<InviteDetails | null>();
  const [failure, setFailure] = useState<string>();
  const [password, setPassword] = useState('');
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
      const body = signedInAsInvitee ? { token } : { token, password };
      setSession(await post<Session>('/invites/accept', body));
      navigate('/links');
    } catch (error) {
      setFailure(messageOf(error));
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
            label={details.existingUser ? 'Your linkhop password' : 'Choose a password'}
            hint={details.existingUser ? undefined : 'At least 8 characters.'}
            type="password"
            autoComplete={details.existingUser ? 'current-password' : 'new-password'}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        )}
        <Button type="submit" variant="primary" busy={busy}>
          Join {details.orgName}
        </Button>
      </form>
    </AuthFrame>
  );
}
