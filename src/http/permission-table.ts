import { PERMISSIONS, type Permission } from '../tenancy/permissions.js';
import type { RouteEntry } from './authorize.js';

/**
 * The "Permissions by route" table of docs/api.md (issue #30, item 4), made from the routes the app
 * registered and the permission each declares, so the page cannot drift from the code:
 * test/accounts/permission-table.test.ts regenerates it and fails when docs/api.md holds anything else,
 * and walks every row with a key of each scope. `scripts/docs-permissions.mjs` writes it.
 */

export const TABLE_START = '<!-- permission-table:start -->';
export const TABLE_END = '<!-- permission-table:end -->';

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** One /v1 operation as the table shows it. */
export interface PermissionRow {
  method: string;
  /** OpenAPI style: `/v1/links/{id}`. */
  path: string;
  permission: Permission | undefined;
  /** The least role of a person using the dashboard's twin; keys have scopes, not roles. */
  role: string;
  /** The scopes that let a key through, `all` last (it always does). */
  scopes: string[];
}

/** `/v1/links/:id` as `/v1/links/{id}`, the way the OpenAPI document and the rest of the docs write it. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

/** The table's rows: every /v1 route but HEAD (Fastify's automatic twin of each GET), in path order. */
export function permissionRows(routes: readonly RouteEntry[]): PermissionRow[] {
  const seen = new Set<string>();
  const rows: PermissionRow[] = [];
  for (const route of routes) {
    if (!route.url.startsWith('/v1/') || route.method === 'HEAD') continue;
    const id = `${route.method} ${route.url}`;
    if (seen.has(id)) continue;
    seen.add(id);
    rows.push(rowOf(route));
  }
  return rows.sort(
    (a, b) =>
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
  );
}

function rowOf(route: RouteEntry): PermissionRow {
  // A route that declares nothing is for owners and `all` keys (permissions.ts, UNDECLARED).
  const rule = route.permission ? PERMISSIONS[route.permission] : { role: 'owner', scopes: [] };
  const scopes = rule.scopes.filter((scope) => scope !== 'all');
  return {
    method: route.method,
    path: openApiPath(route.url),
    permission: route.permission,
    role: rule.role,
    scopes: [...scopes, 'all'],
  };
}

const code = (text: string) => `\`${text}\``;

/** The markdown table, one line per row, ending with a newline. */
export function renderPermissionTable(routes: readonly RouteEntry[]): string {
  const lines = [
    '| Method | Path | Permission | Least role | Scopes that grant it |',
    '|---|---|---|---|---|',
    ...permissionRows(routes).map((row) =>
      [
        '',
        row.method,
        code(row.path),
        row.permission ? code(row.permission) : '(undeclared)',
        row.role,
        row.scopes.map(code).join(', '),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** `doc` with the text between the markers replaced by `table`; throws when the markers are missing. */
export function withPermissionTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/api.md lacks ${TABLE_START} ... ${TABLE_END}`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${table}${doc.slice(end)}`;
}

/** The table as docs/api.md holds it now (between the markers), or undefined without them. */
export function permissionTableIn(doc: string): string | undefined {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return doc.slice(start + TABLE_START.length + 1, end);
}
