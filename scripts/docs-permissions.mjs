// Writes the "Permissions by route" table of docs/api.md from the built app's own routes:
//   npx tsc -p tsconfig.build.json && node scripts/docs-permissions.mjs
// The app is composed as `linkhop serve` composes it, on a throwaway SQLite file, and never listens.
// test/accounts/permission-table.test.ts fails until the committed page holds what this writes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../dist/config.js';
import { renderPermissionTable, withPermissionTable } from '../dist/http/permission-table.js';
import { composeHosted } from '../dist/app.js';
import { migrateToLatest, openStore } from '../dist/store/database.js';

const dir = mkdtempSync(join(tmpdir(), 'linkhop-docs-'));
const store = openStore(`sqlite:${join(dir, 'docs.db')}`);
try {
  await migrateToLatest(store);
  const config = parseConfig(
    { BASE_URL: 'https://lnk.example', SESSION_SECRET: 'docs-permissions-only-0123456789abcdef' },
    'hosted',
  );
  const composed = await composeHosted(config, store, pino({ level: 'silent' }));
  await composed.app.ready();
  const table = renderPermissionTable(composed.app.routeCatalog);
  await composed.close();
  const target = new URL('../docs/api.md', import.meta.url);
  writeFileSync(target, withPermissionTable(readFileSync(target, 'utf8'), table));
  process.stdout.write(`wrote the permission table (${table.split('\n').length - 3} routes) to ${target.pathname}\n`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
