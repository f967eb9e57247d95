import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';

/** A server's SQLite connections take SQLITE_CACHE_MB as their page cache ceiling; the CLI keeps the build's. */
const dir = mkdtempSync(join(tmpdir(), 'linkhop-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cacheSize = (sqliteCacheMb?: number) => {
  const store = openStore(`sqlite:${join(dir, 'cache.db')}`, sqliteCacheMb ? { sqliteCacheMb } : {});
  try {
    return store.sqlite?.pragma('cache_size', { simple: true });
  } finally {
    void store.close();
  }
};

it('sets the page cache ceiling in KiB (negative: a size, not a page count) only when asked', () => {
  expect(cacheSize(16)).toBe(-16 * 1024);
  expect(cacheSize(64)).toBe(-64 * 1024);
  // better-sqlite3's compiled default (16,000 KiB) for migrations and one-shot commands.
  expect(cacheSize()).toBe(-16000);
});
