import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionTableIn, renderPermissionTable } from '../../src/http/permission-table.js';
import { SCOPES, type Scope } from '../../src/tenancy/permissions.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/**
 * docs/api.md's "Permissions by route" (issue #30, item 4): the table is exactly what the app's own routes
 * and their declared permissions make (so it cannot drift), and every row is true: a key of each scope is
 * refused 403 forbidden_scope exactly where its row does not list the scope, on both stores.
 */

const DOC = new URL('../../docs/api.md', import.meta.url);

interface DocRow {
  method: string;
  path: string;
  scopes: string[];
}

/** The rows of the table as docs/api.md holds it: what a reader of the page is told. */
function docRows(): DocRow[] {
  const table = permissionTableIn(readFileSync(DOC, 'utf8')) ?? '';
  return table
    .split('\n')
    .filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) \|/.test(line))
    .map((line) => {
      const [method, path, , , scopes] = line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim());
      return {
        method: method as string,
        path: (path as string).replaceAll('`', ''),
        scopes: (scopes as string).split(', ').map((scope) => scope.replaceAll('`', '')),
      };
    });
}

/** A URL for a path pattern: ids well formed but unknown, handles a name no one has. */
const urlOf = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'handle' ? 'nobody' : randomUUID()));

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`the permission table of docs/api.md on ${kind.name}`, () => {
    let h: HostedHarness;
    const keys = new Map<Scope, string>();

    beforeAll(async () => {
      h = await startHosted(kind);
      const { orgId } = await h.accounts.createOrganization({ name: 'Table', tier: 'legend' });
      for (const scope of SCOPES)
        keys.set(scope, (await h.accounts.mintApiKey(orgId, { name: scope, scopes: [scope] })).apiKey);
    });
    afterAll(async () => h?.close());

    it('is exactly what the routes declare (regenerate: node scripts/docs-permissions.mjs)', () => {
      const doc = readFileSync(DOC, 'utf8');
      expect(permissionTableIn(doc), 'docs/api.md lacks the permission-table markers').toBeDefined();
      expect(permissionTableIn(doc)).toBe(renderPermissionTable(h.app.routeCatalog));
      // Every /v1 operation is a row: the table is the whole API, not a sample.
      const operations = h.app.routeCatalog.filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD');
      expect(docRows()).toHaveLength(new Set(operations.map((r) => `${r.method} ${r.url}`)).size);
      expect(docRows().length).toBeGreaterThan(50);
    });

    it('holds for a key of every scope on every /v1 route: 403 forbidden_scope exactly where it says', {
      timeout: 120_000,
    }, async () => {
      const wrong: string[] = [];
      for (const row of docRows()) {
        for (const scope of SCOPES) {
          const response = await h.v1(keys.get(scope) as string, {
            method: row.method as InjectOptions['method'],
            url: urlOf(row.path),
          });
          const refused = response.statusCode === 403 && response.json().error === 'forbidden_scope';
          if (refused === row.scopes.includes(scope))
            wrong.push(
              `${scope} ${row.method} ${row.path}: ${response.statusCode} ${response.body.slice(0, 100)}`,
            );
        }
      }
      expect(wrong).toEqual([]);
    });
  });
}
