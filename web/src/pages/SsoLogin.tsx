import { type FormEvent, useState } from 'react';
import { get, messageOf } from '../api/client';
import { Banner, Button, TextField } from '../components/ui';
import { currentPath, hashQuery } from '../router';

/**
 * Why the server sent the browser back from a failed SSO sign-in (`sso_error=<reason>`): said in our own
 * words, since text in a URL is anyone's to write.
 */
const SSO_ERRORS: Record<string, string> = {
  state: 'That sign-in did not start in this browser. Start it again here.',
  used: 'That sign-in link was already used or has expired. Start it again.',
  provider: 'Your identity provider did not complete the sign-in. Start it again.',
  no_email: 'Your identity provider did not share your email address.',
  unverified: 'Your identity provider has not verified your email address.',
  domain: 'Your email address is not at the domain this workspace signs in with SSO.',
  removed: 'An owner removed you from this workspace. Ask them to invite you again.',
  other_workspaces:
    'Your account belongs to other workspaces too, so this provider cannot sign it in: log in with your password.',
};

export function ssoErrorOf(path: string): string | undefined {
  const reason = hashQuery(path).get('sso_error');
  return reason ? (SSO_ERRORS[reason] ?? 'The single sign-on did not complete.') : undefined;
}

interface Found {
  displayName: string;
  startUrl: string;
}

/**
 * "Sign in with SSO", as Slack and Linear do it: the work email finds the workspace whose domain it is at,
 * then the button names that workspace's provider and goes there.
 */
export function SsoLogin({
  email: given = '',
  open: initiallyOpen = false,
}: {
  email?: string;
  open?: boolean;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  const [email, setEmail] = useState(given);
  const [found, setFound] = useState<Found>();
  const [failure, setFailure] = useState<string | undefined>(ssoErrorOf(currentPath()));
  const [busy, setBusy] = useState(false);
  async function find(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      setFound(await get<Found>(`/sso/discover?email=${encodeURIComponent(email.trim())}`));
    } catch (error) {
      setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="sso-login" aria-label="Single sign-on">
      {failure ? <Banner>{failure}</Banner> : null}
      {!open ? (
        <Button type="button" className="btn-block" onClick={() => setOpen(true)}>
          Sign in with SSO
        </Button>
      ) : found ? (
        <a className="btn btn-primary btn-block" href={found.startUrl}>
          Sign in with {found.displayName}
        </a>
      ) : (
        <form onSubmit={find} noValidate>
          <TextField
            label="Work email"
            type="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            autoComplete="email"
            required
          />
          <Button type="submit" busy={busy} className="btn-block">
            Continue with SSO
          </Button>
        </form>
      )}
    </section>
  );
}
