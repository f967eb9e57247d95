import { useState } from 'react';
import { del, patch, post } from '../../api/client';
import type { Invite, Member, Role } from '../../api/types';
import { ConfirmDialog, useWrite, WriteForm } from '../../components/confirm';
import {
  Banner,
  Button,
  Card,
  formatDate,
  Loading,
  PageHeader,
  SelectField,
  TableHead,
  TextField,
} from '../../components/ui';
import { can, ROLE_HINTS, ROLE_NAMES } from '../../roles';
import { useAuthed, useSession } from '../../session';
import { useApi } from '../../use-api';
import '../settings/settings.css';

const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

/** Members with their roles, invites, and (for owners and admins) the means to change both. */
export function MembersPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const { refresh } = useSession();
  const manages = can(session, 'members:write');
  const owner = session.role === 'owner';
  const members = useApi<{ members: Member[] }>('/members');
  const invites = useApi<{ invites: Invite[] }>(manages ? '/invites' : null);
  const [notice, setNotice] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [removing, setRemoving] = useState<Member | null>(null);

  const changeRole = async (member: Member, role: Role) => {
    setFailure(undefined);
    try {
      await patch(`/members/${encodeURIComponent(member.userId)}`, { role });
      setNotice(`${member.email} is now ${ROLE_NAMES[role].toLowerCase()}.`);
      await members.reload();
      if (member.userId === session.user.id) await refresh();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
      await members.reload();
    }
  };
  // Only an owner touches owners; nobody picks a role they could not give.
  const editable = (member: Member) => manages && (owner || member.role !== 'owner');

  return (
    <div className="settings-page">
      <PageHeader title="Members" subtitle={`Who works in ${session.org.name}, and what each may do.`} />
      {failure ? <Banner>{failure}</Banner> : null}
      {notice ? <Banner kind="success">{notice}</Banner> : null}
      <Card title="Members">
        {members.error ? <Banner>{members.error}</Banner> : null}
        {!members.data ? (
          <Loading label="Loading members" />
        ) : (
          <div className="table-wrap">
            <table>
              <TableHead columns={['Email', 'Role', 'Joined']} />
              <tbody>
                {members.data.members.map((member) => (
                  <tr key={member.userId}>
                    <td>
                      {member.email}{' '}
                      {member.userId === session.user.id ? <span className="muted">(you)</span> : null}
                    </td>
                    <td>
                      {editable(member) ? (
                        <select
                          aria-label={`Role of ${member.email}`}
                          value={member.role}
                          onChange={(event) => void changeRole(member, event.target.value as Role)}
                        >
                          {ROLES.filter((role) => owner || role !== 'owner').map((role) => (
                            <option key={role} value={role}>
                              {ROLE_NAMES[role]}
                            </option>
                          ))}
                        </select>
                      ) : (
                        ROLE_NAMES[member.role]
                      )}
                    </td>
                    <td>{formatDate(member.createdAt)}</td>
                    <td>
                      {editable(member) && member.userId !== session.user.id ? (
                        <Button
                          variant="danger"
                          className="btn-small"
                          aria-label={`Remove ${member.email}`}
                          onClick={() => setRemoving(member)}
                        >
                          Remove
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ul className="role-legend">
          {ROLES.map((role) => (
            <li key={role}>
              <strong>{ROLE_NAMES[role]}</strong>: {ROLE_HINTS[role]}
            </li>
          ))}
        </ul>
      </Card>
      {manages ? <InviteCard owner={owner} onSent={() => void invites.reload()} /> : null}
      {manages ? (
        <PendingInvites invites={invites.data?.invites} onRevoked={() => void invites.reload()} />
      ) : null}
      <ConfirmDialog
        open={removing !== null}
        title="Remove this member?"
        confirmLabel="Remove"
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          if (!removing) return;
          await del(`/members/${encodeURIComponent(removing.userId)}`);
          setNotice(`${removing.email} no longer has access to ${session.org.name}.`);
          await members.reload();
        }}
      >
        <p>
          <strong>{removing?.email}</strong> loses access to this workspace on their next click. Their links
          stay, and keep redirecting.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function InviteCard({ owner, onSent }: { owner: boolean; onSent: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [sent, setSent] = useState<{ email: string; delivery: 'mail' | 'server_log' } | null>(null);
  const write = useWrite();
  const submit = () =>
    void write.run(async () => {
      const invite = await post<{ email: string; delivery: 'mail' | 'server_log' }>('/invites', {
        email,
        role,
      });
      setSent(invite);
      setEmail('');
      onSent();
    });
  return (
    <Card title="Invite someone">
      {sent ? (
        <Banner kind="success">
          {sent.delivery === 'mail'
            ? `Invite mailed to ${sent.email}. The link in it works once, for 7 days.`
            : `Invite made for ${sent.email}. This server sends no mail (no SMTP_URL): its operator finds the link in the server log and passes it on. It works once, for 7 days.`}
        </Banner>
      ) : null}
      <WriteForm write={write} onSubmit={submit} submitLabel="Send invite">
        <TextField
          label="Email"
          type="email"
          value={email}
          error={write.errors.email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <SelectField
          label="Role"
          value={role}
          error={write.errors.role}
          onChange={(event) => setRole(event.target.value as Role)}
        >
          {ROLES.filter((r) => owner || r !== 'owner').map((r) => (
            <option key={r} value={r}>
              {ROLE_NAMES[r]}: {ROLE_HINTS[r]}
            </option>
          ))}
        </SelectField>
      </WriteForm>
    </Card>
  );
}

function PendingInvites({ invites, onRevoked }: { invites: Invite[] | undefined; onRevoked: () => void }) {
  if (!invites || invites.length === 0) return null;
  return (
    <Card title="Pending invites">
      <div className="table-wrap">
        <table>
          <TableHead columns={['Email', 'Role', 'Expires']} />
          <tbody>
            {invites.map((invite) => (
              <tr key={invite.id}>
                <td>{invite.email}</td>
                <td>{ROLE_NAMES[invite.role]}</td>
                <td>{formatDate(invite.expiresAt)}</td>
                <td>
                  <Button
                    variant="ghost"
                    className="btn-small"
                    aria-label={`Revoke the invite of ${invite.email}`}
                    onClick={() => void del(`/invites/${encodeURIComponent(invite.id)}`).then(onRevoked)}
                  >
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
