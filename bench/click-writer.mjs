// node bench/click-writer.mjs (after `npx tsc -p tsconfig.build.json`): the batch writer's throughput in
// clicks/s, on SQLite and (when DATABASE_URL_TEST is set) PostgreSQL. The store first holds BENCH_PRELOAD
// clicks (default 1,000,000 over 90 days across 1,000 links, so the indexes are the size they are in
// production, not empty), then BENCH_WRITER_CLICKS recorded clicks are flushed through the real buffer with
// its production batch sizes: spread over the links, then all on one hot link; last, clicks offered at a
// steady BENCH_SUSTAINED_RATE (60,000/s) for BENCH_SUSTAINED_SECONDS (20) through the production defaults.
// LINKHOP_DIST=<folder> runs another build (e.g. a copy of dist/ from before a change) for a before/after.
// BENCH_STORES=postgres (or sqlite) runs one database only.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { pick, prng, skewed } from './random.mjs';

const DIST = process.env.LINKHOP_DIST
  ? `${pathToFileURL(resolve(process.env.LINKHOP_DIST)).href}/`
  : new URL('../dist/', import.meta.url).href;
const LINKS = Number(process.env.BENCH_LINKS ?? 1000);
const PRELOAD = Number(process.env.BENCH_PRELOAD ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_WRITER_CLICKS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * The sustained scenario: clicks offered at this rate, for this long, as redirects record them. Above the
 * goal (issue 19: 50,000 clicks/s over 10,000 links on PostgreSQL): the rate measured is the clicks over
 * the time until the last one is written, which the final batches' drain keeps below the offered rate, so
 * offering exactly the goal could never show it met.
 */
const SUSTAINED_RATE = Number(process.env.BENCH_SUSTAINED_RATE ?? 60_000);
const SUSTAINED_GOAL = 50_000;
const SUSTAINED_SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 20);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
const DAY = 86_400_000;
const NOW = Date.now();

const { openStore, migrateToLatest } = await import(`${DIST}store/database.js`);
// SQLite's page cache as a server opens it (SQLITE_CACHE_MB, or the server's default).
const { SQLITE_CACHE_MB_DEFAULT } = await import(`${DIST}config.js`);
const sqliteCacheMb = Number(process.env.SQLITE_CACHE_MB || SQLITE_CACHE_MB_DEFAULT);
const { createClickBuffer } = await import(`${DIST}analytics/write/click-buffer.js`);
const { createAnalyticsRepo } = await import(`${DIST}analytics/repo.js`);

const COUNTRIES = 'US GB DE FR BR IN CA AU ES IT MX NL SE PL JP KR TR AR CO ID'.split(' ');
const DEVICES = ['ios', 'ios', 'ios', 'android', 'android', 'android', 'desktop', 'desktop', 'other'];
const PLATFORMS = [null, 'youtube', 'spotify', 'instagram', 'tiktok', 'amazon'];
const REFERRERS = Array.from({ length: 40 }, (_, i) => `ref${i}.example`);

function makeClick(random, orgId, link, at) {
  return {
    linkId: link.id,
    orgId,
    at,
    bot: random() < 0.02,
    variant: link.ab ? Math.floor(random() * 2) : null,
    routed: 'https://example.com/landing',
    country: skewed(random, COUNTRIES),
    city: null,
    device: pick(random, DEVICES),
    sourceApp: random() < 0.5 ? 'instagram' : null,
    referrerHost: random() < 0.3 ? null : skewed(random, REFERRERS),
    platformKey: link.platform,
    tapId: random() < 0.5 ? randomUUID() : null,
  };
}

/** The preload goes through the same writer in 10,000-click batches, day by day (oldest first). */
async function preload(store, orgId, links) {
  const repo = createAnalyticsRepo(store);
  const random = prng(42);
  const perDay = Math.ceil(PRELOAD / 90);
  const started = Date.now();
  for (let d = 90; d >= 1 && PRELOAD > 0; d--) {
    const dayStart = Math.floor(NOW / DAY - d) * DAY;
    const clicks = Array.from({ length: perDay }, () => random() * DAY)
      .sort((a, b) => a - b)
      .map((offset) => makeClick(random, orgId, skewed(random, links), dayStart + Math.floor(offset)));
    for (let i = 0; i < clicks.length; i += 10_000) await repo.writeClicks(clicks.slice(i, i + 10_000));
  }
  return (Date.now() - started) / 1000;
}

async function benchStore(name, store) {
  await migrateToLatest(store);
  const orgId = randomUUID();
  const random = prng(7);
  const links = Array.from({ length: LINKS }, (_, i) => ({
    id: randomUUID(),
    platform: pick(random, PLATFORMS),
    ab: i % 10 === 1,
  }));
  const seconds = await preload(store, orgId, links);
  console.log(`\n== ${name}: preloaded ${PRELOAD} clicks over 90 days in ${seconds.toFixed(1)} s`);
  const rows = [];
  for (const [label, linkOf] of [
    [`spread over ${LINKS} links`, () => skewed(random, links)],
    ['one hot link', () => links[0]],
  ]) {
    const samples = [];
    for (let round = 0; round < ROUNDS; round++) {
      const errors = [];
      const buffer = createClickBuffer({
        store,
        maxBuffered: CLICKS,
        logger: { warn: () => {}, error: (details) => errors.push(details) },
      });
      // Today's clicks, in arrival order, over the last hour: what a live load writes.
      const start = NOW - 3_600_000;
      for (let i = 0; i < CLICKS; i++)
        buffer.record(makeClick(random, orgId, linkOf(), start + Math.floor((i / CLICKS) * 3_600_000)));
      const began = process.hrtime.bigint();
      await buffer.stop();
      const elapsed = Number(process.hrtime.bigint() - began) / 1e9;
      const { written } = buffer.stats();
      if (written !== CLICKS || errors.length > 0)
        throw new Error(`${label}: wrote ${written}, ${errors.length} errors`);
      samples.push(written / elapsed);
    }
    samples.sort((a, b) => a - b);
    const median = Math.round(samples[Math.floor(samples.length / 2)]);
    rows.push({ store: name, scenario: label, clicksPerSecond: median });
    console.log(
      `${label.padEnd(28)} ${String(median).padStart(8)} clicks/s  (median of ${ROUNDS} x ${CLICKS} clicks; runs ${samples.map(Math.round).join(', ')})`,
    );
  }
  rows.push({ store: name, ...(await sustained(store, orgId, links, random)) });
  return rows;
}

/**
 * A viral hour in miniature: clicks arrive at SUSTAINED_RATE a second, spread over the links, through
 * `record` with the production defaults (batch size adapting to the backlog, the memory bound), for
 * SUSTAINED_SECONDS; then the buffer is stopped. The writer keeps up when every click is written, none is
 * dropped, and the backlog stays bounded; the rate is clicks over the time until the last one is written.
 */
async function sustained(store, orgId, links, random) {
  const errors = [];
  const logger = { warn: () => {}, error: (details) => errors.push(details) };
  const buffer = createClickBuffer({ store, logger });
  buffer.start();
  const started = Date.now();
  let offered = 0;
  let maxPending = 0;
  while (Date.now() - started < SUSTAINED_SECONDS * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * SUSTAINED_RATE);
    for (; offered < due; offered++)
      buffer.record(makeClick(random, orgId, skewed(random, links), Date.now()));
    maxPending = Math.max(maxPending, buffer.stats().pending);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const offeredFor = (Date.now() - started) / 1000;
  await buffer.stop();
  const seconds = (Date.now() - started) / 1000;
  const { written, dropped } = buffer.stats();
  const result = {
    scenario: `sustained ${SUSTAINED_RATE}/s over ${links.length} links for ${SUSTAINED_SECONDS} s`,
    offered,
    written,
    dropped,
    errors: errors.length,
    maxPending,
    clicksPerSecond: Math.round(written / seconds),
  };
  console.log(
    `${result.scenario}: ${offered} offered in ${offeredFor.toFixed(1)} s, ${written} written by ${seconds.toFixed(1)} s = ${result.clicksPerSecond} clicks/s; ${dropped} dropped, ${errors.length} errors, backlog at most ${maxPending}`,
  );
  if (store.dialect === 'postgres') {
    const met = result.clicksPerSecond >= SUSTAINED_GOAL && dropped === 0 && errors.length === 0;
    console.log(
      `  goal on PostgreSQL, ${SUSTAINED_GOAL} clicks/s with nothing dropped: ${met ? 'met' : 'MISSED'}`,
    );
  }
  return result;
}

const results = [];
if (STORES.includes('sqlite')) {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-bench-writer-'));
  try {
    const sqlite = openStore(`sqlite:${join(dir, 'writer.db')}`, { sqliteCacheMb });
    try {
      results.push(...(await benchStore('SQLite', sqlite)));
    } finally {
      await sqlite.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const postgresUrl = process.env.DATABASE_URL_TEST;
if (postgresUrl && STORES.includes('postgres')) {
  const schema = `bench_writer_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const store = openStore(postgresUrl, { schema, maxConnections: 4 });
  try {
    results.push(...(await benchStore('PostgreSQL', store)));
  } finally {
    await store.close();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
} else {
  console.log('\nPostgreSQL skipped (DATABASE_URL_TEST unset, or BENCH_STORES without postgres)');
}
console.log(`\n${JSON.stringify({ bench: 'click-writer', results })}`);
