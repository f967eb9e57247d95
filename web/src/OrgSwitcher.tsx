import { useState } from 'react';
import { messageOf, post } from './api/client';
import type { Session } from './api/types';
import { ROLE_NAMES } from './roles';
import { navigate } from './router';
import { useAuthed, useSession } from './session';

/** For a person in several workspaces: which one the dashboard works in; the choice stays with the session. */
export function OrgSwitcher() {
  const session = useAuthed();
  const { setSession } = useSession();
  const [failure, setFailure] = useState<string>();
  const choose = async (orgId: string) => {
    try {
      setSession(await post<Session>('/session/org', { orgId }));
      navigate('/links');
    } catch (error) {
      setFailure(messageOf(error));
    }
  };
  return (
    <div className="org-switcher">
      <label htmlFor="org-switcher">Workspace</label>
      <select id="org-switcher" value={session.org.id} onChange={(event) => void choose(event.target.value)}>
        {session.orgs.map((org) => (
          <option key={org.id} value={org.id}>
            {org.name} ({ROLE_NAMES[org.role]})
          </option>
        ))}
      </select>
      {failure ? <p className="field-error">{failure}</p> : null}
    </div>
  );
}
