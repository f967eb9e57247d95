import { useState } from 'react';
import { post } from '../../api/client';
import type { Session } from '../../api/types';
import { ConfirmDialog, useWrite, WriteForm } from '../../components/confirm';
import { Banner, Button, Card, TextField } from '../../components/ui';
import { useAuthed, useSession } from '../../session';

/** Settings: change one's password. Other sessions end; this one stays. */
export function PasswordCard() {
  const [form, setForm] = useState({ currentPassword: '', newPassword: '' });
  const [done, setDone] = useState(false);
  const write = useWrite();
  const submit = () =>
    void write.run(async () => {
      await post('/account/password', form);
      setForm({ currentPassword: '', newPassword: '' });
      setDone(true);
    });
  return (
    <Card title="Password">
      {done ? <Banner kind="success">Password changed. Your other sessions are logged out.</Banner> : null}
      <WriteForm write={write} onSubmit={submit} submitLabel="Change password">
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={form.currentPassword}
          error={write.errors.currentPassword}
          onChange={(event) => setForm({ ...form, currentPassword: event.target.value })}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 8 characters."
          value={form.newPassword}
          error={write.errors.newPassword}
          onChange={(event) => setForm({ ...form, newPassword: event.target.value })}
        />
      </WriteForm>
    </Card>
  );
}

/**
 * Settings: leave the workspace one works in. Any role may; the last owner is refused by the server
 * (409 last_owner, shown in the dialog), and one's only workspace cannot be left: that is deleting the
 * account, the card below.
 */
export function LeaveWorkspaceCard() {
  const session = useAuthed();
  const { setSession } = useSession();
  const [open, setOpen] = useState(false);
  const name = session.org.name;
  return (
    <Card title="Leave this workspace">
      {session.orgs.length < 2 ? (
        <p className="hint">
          {name} is your only workspace, so leaving it would leave you nowhere: delete your account instead.
        </p>
      ) : (
        <>
          <p>
            You lose access to {name} at once; its links, pages and everything else stay with it. To come back
            you need a new invite.
          </p>
          <Button variant="danger" onClick={() => setOpen(true)}>
            Leave {name}
          </Button>
        </>
      )}
      <ConfirmDialog
        open={open}
        title={`Leave ${name}?`}
        confirmLabel="Leave workspace"
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          setSession(await post<Session>('/account/leave'));
          window.location.hash = '/links';
        }}
      >
        <p>You will be switched to another of your workspaces.</p>
      </ConfirmDialog>
    </Card>
  );
}

/** Settings: delete one's account; the last owner takes the workspace with them, links keep redirecting. */
export function DeleteAccountCard() {
  const session = useAuthed();
  const { setSession } = useSession();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const lastOwnerOf = session.orgs.filter((org) => org.role === 'owner').map((org) => org.name);
  return (
    <Card title="Delete your account">
      <p>
        Your account goes at once. In a workspace where you are the only owner, the workspace goes too: its
        members who belong nowhere else, keys, audience, analytics, pages and automations are erased. Of each
        link only its address and destination stay, so every published link keeps redirecting.
      </p>
      {lastOwnerOf.length > 0 ? (
        <p className="hint">
          You are an owner of {lastOwnerOf.join(', ')}. Any of them where you are the only owner is deleted
          with your account: make someone else owner first to keep it.
        </p>
      ) : null}
      <Button variant="danger" onClick={() => setOpen(true)}>
        Delete my account
      </Button>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete for good"
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          await post('/account/delete', { currentPassword: password });
          setSession(null);
          window.location.hash = '/';
        }}
      >
        <p>This cannot be undone. Type your password to confirm.</p>
        <TextField
          label="Your password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
      </ConfirmDialog>
    </Card>
  );
}
