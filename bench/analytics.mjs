// npm run bench:analytics -- [--clicks N] [--links N] [--db sqlite|postgres] (or node bench/analytics.mjs after
// a build): seeds N clicks (default 1,000,000) over 90 days across the links (1,000) of one organization,
// then times the analytics reads (p50 and p90 of BENCH_RUNS) on SQLite and, when DATABASE_URL_TEST is set,
// PostgreSQL (--db picks one); last, the batch writer's throughput. The seed goes through the writer's own
// row, rollup and group-rollup code (src/analytics/write/rollups.ts, group-rollups.ts), a transaction per day.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { pick, prng, skewed } from './random.mjs';

const DIST = process.env.LINKHOP_DIST
  ? `${pathToFileURL(resolve(process.env.LINKHOP_DIST)).href}/`
  : new URL('../dist/', import.meta.url).href;
const arg = (name) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
};
const CLICKS = Number(arg('clicks') ?? process.env.BENCH_CLICKS ?? 1_000_000);
const LINKS = Number(arg('links') ?? process.env.BENCH_LINKS ?? 1000);
const DB = arg('db') ?? process.env.BENCH_DB ?? 'both';
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WRITER_CLICKS = Number(process.env.BENCH_WRITER_CLICKS ?? 200_000);
/** The writer's spread scenario covers this many links (the seeded ones, then ids with no row). */
const WRITER_LINKS = Number(process.env.BENCH_WRITER_LINKS ?? 10_000);
const DAY = 86_400_000;
const NOW = Date.UTC(2025, 2, 15, 12, 0, 0);

const { openStore, migrateToLatest } = await import(`${DIST}store/database.js`);
// SQLite's page cache as a server opens it (SQLITE_CACHE_MB, or the server's default).
const { SQLITE_CACHE_MB_DEFAULT } = await import(`${DIST}config.js`);
const sqliteCacheMb = Number(process.env.SQLITE_CACHE_MB || SQLITE_CACHE_MB_DEFAULT);
const { migrationProvider } = await import(`${DIST}store/migrations/index.js`);
const { up } = await import(`${DIST}store/migrations/008-analytics.js`);
const { featuresOf } = await import(`${DIST}tenancy/plans.js`);
const { createAnalyticsService } = await import(`${DIST}analytics/service.js`);
const { createClickBuffer } = await import(`${DIST}analytics/write/click-buffer.js`);
const { addClicks, addOutcome, toRow } = await import(`${DIST}analytics/write/rollups.js`);
const { Increments } = await import(`${DIST}analytics/write/increments.js`);
const { insertMany, writeIncrements, BLOCKS_TABLE } = await import(`${DIST}analytics/write/batch-repo.js`);
const { packBlocks, blockValues } = await import(`${DIST}analytics/click-blocks.js`);
const { createGroupCache } = await import(`${DIST}analytics/write/group-rollups.js`);

const COUNTRIES =
  'US GB DE FR BR IN CA AU ES IT MX NL SE PL JP KR TR AR CO ID PH NG ZA EG SA AE CH AT BE PT'.split(' ');
const PLATFORMS =
  'youtube spotify instagram tiktok amazon applemusic twitch x linkedin reddit whatsapp telegram soundcloud etsy pinterest'.split(
    ' ',
  );
const APPS = [
  'instagram',
  'tiktok',
  'facebook',
  'threads',
  'twitter',
  'linkedin',
  'snapchat',
  'other_webview',
];
const REFERRERS = Array.from({ length: 40 }, (_, i) => `ref${i}.example`);
const DEVICES = ['ios', 'ios', 'ios', 'android', 'android', 'android', 'desktop', 'desktop', 'other'];

async function seed(store) {
  const db = store.db;
  const random = prng(42);
  const orgId = crypto.randomUUID();
  const iso = new Date(NOW).toISOString();
  await db
    .insertInto('organizations')
    .values({ id: orgId, name: 'Bench', tier: 'legend', created_at: iso })
    .execute();
  const folderId = crypto.randomUUID();
  await db
    .insertInto('folders')
    .values({ id: folderId, org_id: orgId, name: 'F', created_at: iso })
    .execute();
  const links = Array.from({ length: LINKS }, (_, i) => ({
    id: crypto.randomUUID(),
    org_id: orgId,
    host: '',
    slug: `b${i}`,
    destination: `https://example.com/${i}`,
    platform_key: i % 5 === 4 ? null : skewed(random, PLATFORMS),
    folder_id: i % 10 === 0 ? folderId : null,
    ab:
      i % 10 === 1
        ? JSON.stringify([
            { u: 'https://example.com/a', w: 1 },
            { u: 'https://example.com/b', w: 1 },
          ])
        : null,
    created_at: iso,
    updated_at: iso,
  }));
  for (let i = 0; i < links.length; i += 500)
    await db
      .insertInto('links')
      .values(links.slice(i, i + 500))
      .execute();
  const tagged = links.filter((_, i) => i % 5 === 0).map((link) => ({ link_id: link.id, tag: 'promo' }));
  for (let i = 0; i < tagged.length; i += 500)
    await db
      .insertInto('link_tags')
      .values(tagged.slice(i, i + 500))
      .execute();

  // Clicks per link follow a power law; the remainder goes to the first link so the total is exact.
  const weights = links.map((_, i) => 1 / (i + 10) ** 0.8);
  const sum = weights.reduce((a, b) => a + b, 0);
  const perLink = weights.map((w) => Math.floor((CLICKS * w) / sum));
  perLink[0] += CLICKS - perLink.reduce((a, b) => a + b, 0);

  let tap = 0;
  let outcomes = 0;
  const groups = createGroupCache();
  const today = Math.floor(NOW / DAY);
  const seedStarted = Date.now();
  // Day by day, oldest first, each day in time order: the order live traffic arrives in, so every index
  // grows at its end (or at each link's end) instead of at random places. One transaction per day.
  for (let d = 89; d >= 0; d--) {
    const dayStart = (today - d) * DAY;
    const span = Math.min(DAY, NOW - dayStart);
    const clicks = [];
    for (let l = 0; l < links.length; l++) {
      const link = links[l];
      const base = Math.floor(perLink[l] / 90);
      const count = base + ((d + l) % 90 < perLink[l] % 90 ? 1 : 0);
      for (let n = 0; n < count; n++) {
        const device = pick(random, DEVICES);
        const mobile = device === 'ios' || device === 'android';
        const escaped = mobile && link.platform_key !== null;
        clicks.push({
          linkId: link.id,
          orgId,
          at: dayStart + Math.floor(random() * span),
          bot: false,
          variant: link.ab ? Math.floor(random() * 2) : null,
          routed: link.destination,
          country: random() < 0.05 ? null : skewed(random, COUNTRIES),
          city: null,
          device,
          sourceApp: mobile && random() < 0.6 ? skewed(random, APPS) : null,
          referrerHost: random() < 0.3 ? null : skewed(random, REFERRERS),
          platformKey: link.platform_key,
          tapId: escaped ? `tap-${++tap}` : null,
        });
      }
    }
    clicks.sort((x, y) => x.at - y.at);
    const inc = new Increments();
    const raw = [];
    const taps = [];
    for (const click of clicks) {
      raw.push(toRow(click));
      if (click.tapId !== null && random() < 0.7) {
        const r = random();
        const outcome = r < 0.55 ? 'opened' : r < 0.85 ? 'browser' : 'broken';
        const o = {
          tapId: click.tapId,
          orgId,
          linkId: click.linkId,
          day: today - d,
          outcome,
          variant: click.variant,
          platformKey: click.platformKey,
          at: click.at + 3000,
        };
        addOutcome(inc, o);
        taps.push({
          tap_id: o.tapId,
          org_id: orgId,
          link_id: o.linkId,
          day: o.day,
          outcome,
          variant: o.variant,
          platform_key: o.platformKey,
          at: o.at,
        });
        outcomes++;
      }
    }
    // Folded by shape first, as the batch writer folds a batch (a day repeats each shape many times).
    addClicks(inc, raw);
    // Rows of each rollup table in key order, so the inserts walk each index once.
    inc.rows.sort((x, y) => (x.link_id < y.link_id ? -1 : x.link_id > y.link_id ? 1 : 0));
    await db.transaction().execute(async (trx) => {
      // Raw clicks packed per link and hour, as the batch writer packs them per link and batch: at ~11
      // clicks per link a day most blocks hold one click, like a busy organization's spread traffic.
      const hours = new Map();
      for (const row of raw) {
        const hour = Math.floor(row.at / 3_600_000);
        if (!hours.has(hour)) hours.set(hour, []);
        hours.get(hour).push(row);
      }
      const blocks = [...hours.values()].flatMap((rows) => packBlocks(rows));
      await insertMany(trx, store.dialect, BLOCKS_TABLE, blocks.map(blockValues));
      // 4,000 rows of 8 values a statement: within both databases' limits on bound values.
      for (let i = 0; i < taps.length; i += 4000)
        await trx
          .insertInto('tap_outcomes')
          .values(taps.slice(i, i + 4000))
          .execute();
      await writeIncrements(trx, store.dialect, inc, groups);
    });
    if (d % 10 === 0)
      process.stdout.write(`  seeded day -${d} (${((Date.now() - seedStarted) / 1000).toFixed(0)} s)\n`);
  }
  return { orgId, folderId, links, outcomes };
}

const fileSize = (path) => {
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += statSync(`${path}${suffix}`).size;
    } catch {}
  }
  return bytes;
};

async function time(fn) {
  for (let i = 0; i < 3; i++) await fn();
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], p90: samples[Math.floor(samples.length * 0.9)] };
}

/** `sizes` prints the database's size and its raw clicks' part, measured right after the seed. */
async function benchStore(name, store, sizes) {
  console.log(`\n== ${name}`);
  await migrateToLatest(store);
  const registered = Object.keys(await migrationProvider.getMigrations()).some((m) => m.startsWith('008'));
  if (!registered) await up(store.db);
  let started = Date.now();
  const data = await seed(store);
  // PostgreSQL's autovacuum analyzes a table this size within a minute; do it now rather than time stale plans.
  if (store.dialect === 'postgres') await sql`analyze`.execute(store.db);
  const seedSeconds = (Date.now() - started) / 1000;
  const count = async (table) =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      ).n,
    );
  console.log(
    `seeded ${CLICKS} clicks in ${await count('click_blocks')} blocks, ${data.outcomes} outcomes, ${await count('click_rollups')} link and ${await count('org_rollups')} organization rollup rows across ${LINKS} links in ${seedSeconds.toFixed(1)} s`,
  );
  console.log(await sizes());

  const analytics = createAnalyticsService({
    store,
    analytics: true,
    links: {
      get: async () => ({
        ab: [
          { u: 'https://example.com/a', w: 1 },
          { u: 'https://example.com/b', w: 1 },
        ],
      }),
    },
    tapTokens: { redeem: async () => null, verify: () => null },
    emitEvent: async () => {},
    now: () => new Date(NOW),
  });
  const ctx = { orgId: data.orgId, tier: 'legend', features: featuresOf('legend') };
  const top = data.links[0].id;
  const first = await analytics.analytics(ctx, { days: 90 });
  if (first.total !== CLICKS) throw new Error(`total ${first.total} != ${CLICKS}`);
  const cases = [
    ['/v1/analytics (whole org, 30 days)', () => analytics.analytics(ctx, { days: 30 })],
    ['/v1/analytics (whole org, 90 days)', () => analytics.analytics(ctx, { days: 90 })],
    [
      `/v1/analytics?folderId (${LINKS / 10} links)`,
      () => analytics.analytics(ctx, { days: 30, folderId: data.folderId }),
    ],
    [`/v1/analytics?tag (${LINKS / 5} links)`, () => analytics.analytics(ctx, { days: 30, tag: 'promo' })],
    [
      `/v1/analytics?folderId, 90 days`,
      () => analytics.analytics(ctx, { days: 90, folderId: data.folderId }),
    ],
    [`/v1/analytics?tag, 90 days`, () => analytics.analytics(ctx, { days: 90, tag: 'promo' })],
    ['/v1/analytics?linkId (busiest link)', () => analytics.analytics(ctx, { days: 30, linkId: top })],
    ['/v1/links/{id}/stats (busiest)', () => analytics.linkStats(ctx, top)],
    ['/v1/links/{id}/ab-stats', () => analytics.abStats(ctx, data.links[1].id)],
    ['/v1/links/{id}/clicks (busiest, 200)', () => analytics.clicks(ctx, top, { limit: 200 })],
  ];
  const results = {};
  for (const [label, fn] of cases) {
    const { median, p90 } = await time(fn);
    results[label] = median;
    console.log(
      `${label.padEnd(40)} median ${median.toFixed(1).padStart(7)} ms   p90 ${p90.toFixed(1).padStart(7)} ms`,
    );
  }

  // The batch writer on the seeded store, flushing WRITER_CLICKS recorded clicks with the production batch sizes:
  // spread over every link and hour (the worst case for rollup rows), then one hot link (a load test).
  const random = prng(7);
  const spread = Array.from(
    { length: Math.max(WRITER_LINKS, data.links.length) },
    (_, i) => data.links[i] ?? { ...data.links[i % data.links.length], id: crypto.randomUUID() },
  );
  for (const [label, linkOf] of [
    [`spread over ${spread.length} links`, () => skewed(random, spread)],
    ['one hot link', () => data.links[0]],
  ]) {
    const buffer = createClickBuffer({
      store,
      maxBuffered: WRITER_CLICKS,
      logger: { warn: console.warn, error: console.error },
    });
    for (let i = 0; i < WRITER_CLICKS; i++) {
      const link = linkOf();
      buffer.record({
        linkId: link.id,
        orgId: data.orgId,
        at: NOW - Math.floor(random() * DAY),
        bot: false,
        variant: null,
        routed: link.destination,
        country: skewed(random, COUNTRIES),
        city: null,
        device: pick(random, DEVICES),
        sourceApp: null,
        referrerHost: skewed(random, REFERRERS),
        platformKey: link.platform_key,
        tapId: null,
      });
    }
    started = Date.now();
    await buffer.stop();
    const seconds = (Date.now() - started) / 1000;
    const { written } = buffer.stats();
    console.log(
      `batch writer, ${label}: ${written} clicks in ${seconds.toFixed(2)} s = ${Math.round(written / seconds)} clicks/s`,
    );
  }
  return results;
}

const dir = mkdtempSync(join(tmpdir(), 'linkhop-bench-analytics-'));
if (DB !== 'postgres') {
  try {
    const sqlite = openStore(`sqlite:${join(dir, 'bench.db')}`, { sqliteCacheMb });
    // dbstat (compiled into better-sqlite3's SQLite) gives each table's and index's pages, as PostgreSQL's
    // pg_total_relation_size does below: the raw clicks apart from the rollups.
    await benchStore('SQLite', sqlite, async () => {
      const raw = sqlite.sqlite
        .prepare("select sum(pgsize) as bytes from dbstat where name like 'click_blocks%'")
        .get().bytes;
      return `SQLite file: ${(fileSize(join(dir, 'bench.db')) / 1e6).toFixed(0)} MB, raw clicks (click_blocks and its indexes) ${(raw / 1e6).toFixed(0)} MB`;
    });
    await sqlite.close();
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

const postgresUrl = process.env.DATABASE_URL_TEST;
if (DB === 'sqlite') {
  // PostgreSQL not asked for.
} else if (postgresUrl) {
  const schema = `bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const store = openStore(postgresUrl, { schema, maxConnections: 4 });
  try {
    await benchStore('PostgreSQL', store, async () => {
      const size = await admin.query(
        `select sum(pg_total_relation_size(c.oid))::bigint as bytes from pg_class c
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ('r', 'p')`,
        [schema],
      );
      const blocks = await admin.query(
        `select sum(pg_total_relation_size(c.oid))::bigint as bytes from pg_class c
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relname like 'click_blocks%' and c.relkind = 'r'`,
        [schema],
      );
      return `PostgreSQL schema: ${(Number(size.rows[0].bytes) / 1e6).toFixed(0)} MB, raw click partitions ${(Number(blocks.rows[0].bytes) / 1e6).toFixed(0)} MB`;
    });
  } finally {
    await store.close();
    if (!process.env.BENCH_KEEP) await admin.query(`drop schema ${schema} cascade`);
    else console.log(`kept schema ${schema}`);
    await admin.end();
  }
} else {
  console.log('\nDATABASE_URL_TEST is not set: PostgreSQL skipped');
}
