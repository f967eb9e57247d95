import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';

describe('migrations on SQLite', () => {
  const opened: Store[] = [];
  let dir = '';
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('two migrators on one file at once (the CLI beside a starting server) both succeed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'linkhop-migrate-'));
    const url = `sqlite:${join(dir, 'shared.db')}`;
    const [a, b] = [openStore(url), openStore(url)];
    opened.push(a, b);
    const reports = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
    // Every migration was applied once, by one or the other, and the schema is whole.
    const applied = reports.flatMap((report) => report.applied);
    expect(new Set(applied).size).toBe(applied.length);
    const again = await migrateToLatest(a);
    expect(again.applied).toEqual([]);
    const tables = await a.db.introspection.getTables();
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(['links', 'click_blocks', 'bio_pages']),
    );
  });
});
