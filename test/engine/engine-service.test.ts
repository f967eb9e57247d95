import { describe, expect, it, onTestFinished } from 'vitest';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import type { EngineLinkRepo, EngineLinkRow } from '../../src/engine/repo.js';
import { createEngineLinkRepo } from '../../src/engine/repo.js';
import { createEngineLinkService } from '../../src/engine/service.js';
import { engineStoreOn } from '../helpers/engine.js';
import { sqliteKind } from '../helpers/stores.js';

/** Random bytes that spell out the given slugs, one per call, so a test can force collisions. */
function scriptedBytes(slugs: string[]) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let call = 0;
  return (size: number) => {
    const slug = slugs[Math.min(call++, slugs.length - 1)] ?? '';
    const bytes = new Uint8Array(size);
    for (let i = 0; i < slug.length; i++) bytes[i] = alphabet.indexOf(slug[i] ?? 'A');
    return bytes;
  };
}

describe('engine slug generation', () => {
  it('retries on a collision until it finds a free slug', async () => {
    const testStore = await sqliteKind.create();
    try {
      const store = engineStoreOn(testStore);
      onTestFinished(() => store.close());
      const repo = createEngineLinkRepo(store);
      const service = createEngineLinkService({
        repo,
        table: createPlatformTable(),
        baseUrl: 'https://s.example',
        randomBytes: scriptedBytes(['aaaaaa', 'aaaaaa', 'aaaaaa', 'bbbbbb']),
        now: () => new Date('2026-01-01T00:00:00Z'),
      });
      expect((await service.create({ url: 'https://example.com/1' })).slug).toBe('aaaaaa');
      const second = await service.create({ url: 'https://example.com/2' });
      expect(second.slug).toBe('bbbbbb');
      expect((await service.get('aaaaaa')).url).toBe('https://example.com/1');
      expect((await service.get('bbbbbb')).url).toBe('https://example.com/2');
    } finally {
      await testStore.dispose();
    }
  });

  it('gives up with an error, never an overwrite, when every attempt collides', async () => {
    const rows: EngineLinkRow[] = [];
    const repo: EngineLinkRepo = {
      insert: async (row) => {
        if (rows.some((existing) => existing.slug === row.slug)) return false;
        rows.push(row);
        return true;
      },
      findBySlug: async (slug) => rows.find((row) => row.slug === slug),
    };
    const service = createEngineLinkService({
      repo,
      table: createPlatformTable(),
      baseUrl: 'https://s.example',
      randomBytes: scriptedBytes(['zzzzzz']),
      now: () => new Date(),
    });
    await service.create({ url: 'https://example.com/first' });
    await expect(service.create({ url: 'https://example.com/second' })).rejects.toThrow(/free slug/);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.url).toBe('https://example.com/first');
  });

  it('skips biased bytes so every character is equally likely', async () => {
    const { generateSlug } = await import('../../src/core/slugs.js');
    // 248..255 are above the largest multiple of 62 and must be dropped, not folded onto a..h.
    const bytes = [250, 255, 0, 248, 1, 2, 3, 4, 5, 6, 7, 8];
    expect(generateSlug(6, () => Uint8Array.from(bytes))).toBe('ABCDEF');
  });
});
