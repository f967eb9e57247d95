import { type Permission, roleAllows, SCOPES } from '../../src/tenancy/permissions.js';
import type { Role, Session } from './api/types';

/** The role table is the server's own (src/tenancy/permissions.ts): the dashboard cannot disagree with it. */
export const ROLE_NAMES: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  viewer: 'Viewer',
};

export const ROLE_HINTS: Record<Role, string> = {
  owner: 'Everything, including owners and deleting the workspace',
  admin: 'Everything but owners and deleting the workspace',
  member: 'Creates and edits links, bio, audience and automations',
  viewer: 'Reads everything, changes nothing',
};

export const KEY_SCOPES = SCOPES.filter((scope) => scope !== 'all');

/** Whether the session's role may do what a route declaring `permission` does. */
export function can(session: Session, permission: Permission): boolean {
  return roleAllows(session.role, permission);
}
