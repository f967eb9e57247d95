import { useState } from 'react';
import { messageOf, post } from './api/client';
import type { Session } from './api/types';
import { ROLE_NAMES } from './roles';
import { currentPath, navigate } from './router';
import { useAuthed, useSession } from './session';

/** For a person in several workspaces: which one the dashboard works in; the choice stays with the session. */
export function OrgSwitcher() {
  const session = useAuthed();
  const { setSession } = useSession();
  const [failure, setFailure] = useState<string>();
  const choose = async (orgId: string) => {
    try {
      const next = await post<Session>('/session/org', { orgId });
      // A page about one thing of the old workspace (a link, an import) has no meaning in the new one: go to
      // its list. Any other page stays, and shows the new workspace's data (App keys the page by workspace).
      const landing = pageAfterSwitch(currentPath());
      if (landing !== currentPath()) navigate(landing);
      setSession(next);
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

/** Where a workspace switch lands from `path`: the same page, or the list a one-item page belongs to. */
export function pageAfterSwitch(path: string): string {
  const bare = path.split('?')[0] ?? '/';
  if (/^\/links\/[^/]+\/analytics$/.test(bare)) return '/analytics';
  if (/^\/links\/[^/]+$/.test(bare) && bare !== '/links/new') return '/links';
  if (/^\/imports\/[^/]+$/.test(bare)) return '/imports';
  // Filters name folders and tags of the old workspace: the list starts unfiltered.
  return bare;
}
