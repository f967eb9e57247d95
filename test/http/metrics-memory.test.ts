import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { createClickThread } from '../../src/analytics/write/click-thread.js';
import type { Composed } from '../../src/app.js';
import { createAuditRepo } from '../../src/audit/repo.js';
import { createAuditLog } from '../../src/audit/service.js';
import { parseConfig } from '../../src/config.js';
import { clickInput } from '../analytics/setup.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Memory on /metrics as a running server shows it: the built service (dist/, as `linkhop serve` runs it,
 * since only the built writer thread script can be started) with its click writer thread, over real HTTP.
 */
const BUILT_APP = new URL('../../dist/app.js', import.meta.url);

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('memory metrics of a hosted service with its click writer thread', () => {
  let testStore: TestStore;
  let composed: Composed;
  let origin: string;
  let newKey: () => Promise<string>;
  beforeAll(async () => {
    testStore = await sqliteKind.create();
    const { composeHosted } = (await import(BUILT_APP.href)) as typeof import('../../src/app.js');
    const config = parseConfig(
      {
        BASE_URL: 'https://lnk.example',
        SESSION_SECRET: 'test-session-secret-0123456789abcdef',
        DATABASE_URL: testStore.url,
        LOG_LEVEL: 'error',
      },
      'hosted',
    );
    const pino = (await import('pino')).default;
    composed = await composeHosted(config, testStore.store, pino({ level: 'silent' }), { clickThread: true });
    origin = await composed.app.listen({ port: 0, host: '127.0.0.1' });
    const accounts = createAccountService({
      repo: createAccountRepo(testStore.store),
      now: () => new Date(),
      uuid: randomUUID,
      audit: createAuditLog({ repo: createAuditRepo(testStore.store), now: () => new Date() }),
    });
    newKey = async () => {
      const { orgId } = await accounts.createOrganization({ name: 'Memory', tier: 'legend' });
      return (await accounts.mintApiKey(orgId)).apiKey;
    };
  });
  afterAll(async () => {
    await composed?.close();
    await testStore?.dispose();
  });

  const scrape = async () => (await fetch(`${origin}/metrics`)).text();
  const createLink = async (apiKey: string, url: string): Promise<string> => {
    const response = await fetch(`${origin}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { slug: string }).slug;
  };
  const visit = (slug: string, ua: string) =>
    fetch(`${origin}/${slug}`, { redirect: 'manual', headers: { 'user-agent': ua } });

  it('shows RSS once and the heap of the main thread and of the click writer thread, read inside it', async () => {
    const apiKey = await newKey();
    // The first visit starts the writer thread (an instance nobody visits runs without it).
    await visit(await createLink(apiKey, 'https://example.com/heap'), UA.desktopChrome);
    // A thread still loading its modules does not answer within a scrape's wait: it shows once it does.
    let text = await scrape();
    for (let i = 0; i < 50 && !text.includes('thread="click-writer"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape();
    }
    expect(sample(text, 'linkhop_process_rss_bytes')).toBeGreaterThan(0);
    for (const gauge of ['heap_used', 'heap_total', 'external', 'array_buffers']) {
      expect(sample(text, `linkhop_thread_${gauge}_bytes{thread="main"}`)).toBeGreaterThan(0);
      expect(sample(text, `linkhop_thread_${gauge}_bytes{thread="click-writer"}`)).toBeGreaterThanOrEqual(0);
    }
    const main = sample(text, 'linkhop_thread_heap_used_bytes{thread="main"}') as number;
    const writer = sample(text, 'linkhop_thread_heap_used_bytes{thread="click-writer"}') as number;
    expect(writer).toBeGreaterThan(1_000_000);
    // The writer's isolate holds its pool and batch buffer, not the app's routes and caches.
    expect(writer).not.toBe(main);
    expect(writer).toBeLessThan(main);
    // The ring is the main thread's SharedArrayBuffer (8 MB): it counts there, not in the writer.
    expect(sample(text, 'linkhop_thread_array_buffers_bytes{thread="main"}')).toBeGreaterThanOrEqual(
      8 * 2 ** 20,
    );
  });

  it('counts the link cache, the compiled pages and the user agents as visits fill them', async () => {
    const apiKey = await newKey();
    const slug = await createLink(apiKey, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    const before = await scrape();
    expect((await visit(slug, UA.instagramIos)).status).toBe(200);
    const after = await scrape();
    const moved = (cache: string) =>
      (sample(after, `linkhop_cache_entries{cache="${cache}"}`) as number) -
      (sample(before, `linkhop_cache_entries{cache="${cache}"}`) as number);
    expect(moved('links')).toBe(1);
    expect(moved('ua_classifier')).toBe(1);
    expect(moved('compiled_pages')).toBe(1);
    // The page's compiled texts: a few kilobytes of HTML and script.
    const pageBytes =
      (sample(after, 'linkhop_cache_bytes{cache="compiled_pages"}') as number) -
      (sample(before, 'linkhop_cache_bytes{cache="compiled_pages"}') as number);
    expect(pageBytes).toBeGreaterThan(1000);
    // A second visit of the same link and user agent holds nothing more.
    await visit(slug, UA.instagramIos);
    const again = await scrape();
    for (const cache of ['links', 'ua_classifier', 'compiled_pages'])
      expect(sample(again, `linkhop_cache_entries{cache="${cache}"}`)).toBe(
        sample(after, `linkhop_cache_entries{cache="${cache}"}`),
      );
  });

  it('counts the tap ids held in memory (no Redis): one per reported tap, a replay holds nothing more', async () => {
    const slug = await createLink(await newKey(), 'https://www.youtube.com/watch?v=metrics00');
    const page = await (await visit(slug, UA.instagramIos)).text();
    const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(page)?.[1];
    expect(token).toBeTruthy();
    const before = await scrape();
    const report = () =>
      fetch(`${origin}/api/public/tap`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ token, outcome: 'opened' }),
      });
    expect((await report()).status).toBe(204);
    await report();
    const after = await scrape();
    const held = (text: string, cache: string) =>
      sample(text, `linkhop_cache_entries{cache="${cache}"}`) as number;
    expect(held(after, 'tap_ids') - held(before, 'tap_ids')).toBe(1);
    // Outcomes the store refused wait in memory to be retried: none here, the store took it.
    expect(held(after, 'held_outcomes')).toBe(0);
  });

  it('counts the keys the in-process rate limits hold', async () => {
    const before = sample(await scrape(), 'linkhop_cache_entries{cache="rate_limits"}') as number;
    // A new key's first /v1 call is a new key for the /v1 limit.
    await createLink(await newKey(), 'https://example.com/limits');
    const after = sample(await scrape(), 'linkhop_cache_entries{cache="rate_limits"}') as number;
    expect(after).toBe(before + 1);
  });
});

describe('the writer thread asked for its memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-memory-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers from the thread running now: a restarted thread is asked, a thread left down shows nothing', async () => {
    // Answers with its thread id as heapUsed, then dies: each answer names the thread that gave it.
    const script = join(dir, 'answers-then-dies.mjs');
    writeFileSync(
      script,
      `import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.type !== 'memory') return;
  parentPort.postMessage({ type: 'memory', seq: m.seq, memory: { heapUsed: threadId, heapTotal: 1, external: 1, arrayBuffers: 1 } });
  setTimeout(() => process.exit(1), 20);
});
`,
    );
    const quiet = { warn: () => undefined, error: () => undefined };
    const sink = createClickThread({
      file: pathToFileURL(script),
      databaseUrl: 'sqlite::memory:',
      logger: quiet,
    });
    // The first click starts the thread; each restart answers once before it dies.
    sink.record(clickInput({}));
    const seen = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const memory = await sink.memory();
      if (memory) seen.add(memory.heapUsed);
      else if (seen.size === 5) break;
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    // Five threads answered, each once: never an old thread's numbers after its restart.
    expect(seen.size).toBe(5);
    // Left down after five deaths in a minute: no numbers, rather than the last dead thread's.
    expect(await sink.memory()).toBeUndefined();
    await sink.stop();
  });
});
