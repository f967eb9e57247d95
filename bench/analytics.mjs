// npm run bench:analytics -- [--clicks N] [--links N] [--moves N] [--db sqlite|postgres|clickhouse|a,b] (or node
// bench/analytics.mjs after a build): seeds N clicks (default 1,000,000; BENCH_CLICKS) over 90 days across
// the links (1,000) of one organization, then times the analytics reads (p50 and p90 of BENCH_RUNS) on
// SQLite and, when DATABASE_URL_TEST is set, PostgreSQL (--db picks; default both), and the folder and
// tag views again after --moves N links (10) left and joined each; last, the batch writer's throughput. The SQL seed goes through the writer's own row, rollup and group-rollup code
// (src/analytics/write/rollups.ts, group-rollups.ts), a transaction per day.
//
// `--db postgres,clickhouse` runs PostgreSQL and ClickHouse side by side on the same data (issue #35).
// ClickHouse is BENCH_CLICKHOUSE_URL (clickhouse://user:pass@host:8123/db), else a clickhouse-server
// started here on a free port (CLICKHOUSE_BIN, or Debian's /usr/sbin/clickhouse-server) in a temporary
// folder. Its seed is the ingestion figure: the same clicks, a day at a time in batches of
// BENCH_CH_BATCH (100,000), through the store's writeClicks (views build the rollups); the main
// database holding the links (folders and tags resolve there) is a SQLite file. Disk per million clicks
// is system.parts' bytes_on_disk against pg_total_relation_size.
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
const TARGETS = new Set(DB === 'both' ? ['sqlite', 'postgres'] : DB.split(','));
const CH_BATCH = Number(process.env.BENCH_CH_BATCH ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
/** Links moved out of the folder and into it (and off and onto the tag) before the views are timed again. */
const MOVES = Number(arg('moves') ?? process.env.BENCH_MOVES ?? 10);
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
const { moveLinkGroups } = await import(`${DIST}analytics/write/group-repo.js`);

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

/**
 * MOVES of the folder's links out of it and MOVES others in, and as many off and onto the tag, each in a
 * transaction as a link update makes it (its group move, history and version bump included).
 */
async function moveLinks(store, data) {
  const day = Math.floor(NOW / DAY);
  const inFolder = data.links.filter((link) => link.folder_id === data.folderId);
  const outside = data.links.filter((link) => link.folder_id !== data.folderId);
  const tagged = data.links.filter((_, i) => i % 5 === 0);
  const untagged = data.links.filter((_, i) => i % 5 !== 0);
  const groupsOfLink = (folderId, tagged) => [
    ...(folderId ? [`f:${folderId}`] : []),
    ...(tagged ? ['t:promo'] : []),
  ];
  const move = (link, folderId, tag) =>
    store.db.transaction().execute(async (trx) => {
      const wasTagged =
        (await trx.selectFrom('link_tags').select('tag').where('link_id', '=', link.id).execute()).length > 0;
      const from = groupsOfLink(link.folder_id, wasTagged);
      await trx.updateTable('links').set({ folder_id: folderId }).where('id', '=', link.id).execute();
      await trx.deleteFrom('link_tags').where('link_id', '=', link.id).execute();
      if (tag) await trx.insertInto('link_tags').values({ link_id: link.id, tag: 'promo' }).execute();
      await moveLinkGroups(trx, {
        orgId: data.orgId,
        linkId: link.id,
        from,
        to: groupsOfLink(folderId, tag),
        day,
      });
      link.folder_id = folderId;
    });
  const isTagged = (link) => tagged.includes(link);
  for (const link of inFolder.slice(0, MOVES)) await move(link, null, isTagged(link));
  for (const link of outside.slice(1, MOVES + 1)) await move(link, data.folderId, isTagged(link));
  for (const link of tagged.slice(-MOVES)) await move(link, link.folder_id, false);
  for (const link of untagged.slice(-MOVES)) await move(link, link.folder_id, true);
}

/** The organization, its folder, links (a tenth in the folder, a fifth tagged) and clicks per link. */
async function seedLinks(store) {
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

  // The generator goes on from here: the clicks that follow are the same as before the split.
  return { orgId, folderId, links, perLink, random };
}

/**
 * The outcome the seed reports for a click, or null: 7 in 10 taps report, 55 % opened, 30 % browser, 15 %
 * broken, three seconds after the click. Both targets draw from `random` in the same order, so they seed
 * the same outcomes.
 */
function seededOutcome(click, orgId, day, random) {
  if (click.tapId === null || random() >= 0.7) return null;
  const r = random();
  const outcome = r < 0.55 ? 'opened' : r < 0.85 ? 'browser' : 'broken';
  return {
    tapId: click.tapId,
    orgId,
    linkId: click.linkId,
    day,
    outcome,
    variant: click.variant,
    platformKey: click.platformKey,
    at: click.at + 3000,
  };
}

/** Day `d` (days before NOW) of clicks, in time order: the same sequence for every target. */
function dayClicks(data, d, random, taps) {
  const { orgId, links, perLink } = data;
  const today = Math.floor(NOW / DAY);
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
        tapId: escaped ? `tap-${++taps.n}` : null,
      });
    }
  }
  clicks.sort((x, y) => x.at - y.at);
  return clicks;
}

async function seed(store) {
  const db = store.db;
  const data = await seedLinks(store);
  const { orgId, random } = data;
  const tapCount = { n: 0 };
  let outcomes = 0;
  const groups = createGroupCache();
  const today = Math.floor(NOW / DAY);
  const seedStarted = Date.now();
  // Day by day, oldest first, each day in time order: the order live traffic arrives in, so every index
  // grows at its end (or at each link's end) instead of at random places. One transaction per day.
  for (let d = 89; d >= 0; d--) {
    const clicks = dayClicks(data, d, random, tapCount);
    const inc = new Increments();
    const raw = [];
    const taps = [];
    for (const click of clicks) {
      raw.push(toRow(click));
      const o = seededOutcome(click, orgId, today - d, random);
      if (o) {
        addOutcome(inc, o);
        taps.push({
          tap_id: o.tapId,
          org_id: orgId,
          link_id: o.linkId,
          day: o.day,
          outcome: o.outcome,
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
  return { ...data, outcomes };
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

/** Each target's figures, for the side-by-side table at the end. */
const summary = {};

/**
 * `sizes` prints the database's size and its raw clicks' part, measured right after the seed, and returns
 * its bytes per million clicks. `target` (ClickHouse) brings its own seed, the analytics store the reads
 * go to and the batch writer's `write`; `store` is then the main database holding the links.
 */
async function benchStore(name, store, sizes, target) {
  console.log(`\n== ${name}`);
  await migrateToLatest(store);
  const registered = Object.keys(await migrationProvider.getMigrations()).some((m) => m.startsWith('008'));
  if (!registered) await up(store.db);
  let started = Date.now();
  const data = target ? await target.seed(store) : await seed(store);
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
  const figures = { views: {}, writer: {}, ingestion: data.ingestion ?? null };
  summary[name] = figures;
  if (target)
    console.log(
      `seeded ${CLICKS} clicks, ${data.outcomes} outcomes across ${LINKS} links in ${seedSeconds.toFixed(1)} s; ` +
        `writeClicks (batches of ${CH_BATCH}): ${Math.round(data.ingestion)} clicks/s`,
    );
  else
    console.log(
      `seeded ${CLICKS} clicks in ${await count('click_blocks')} blocks, ${data.outcomes} outcomes, ${await count('click_rollups')} link and ${await count('org_rollups')} organization rollup rows across ${LINKS} links in ${seedSeconds.toFixed(1)} s`,
    );
  const size = await sizes();
  console.log(size.line);
  figures.perMillion = size.bytes / (CLICKS / 1e6);
  console.log(`disk per million clicks: ${(figures.perMillion / 1e6).toFixed(1)} MB`);

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
    ...(target ? { repo: target.repo } : {}),
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
    figures.views[label] = median;
    console.log(
      `${label.padEnd(40)} median ${median.toFixed(1).padStart(7)} ms   p90 ${p90.toFixed(1).padStart(7)} ms`,
    );
  }

  // Folders and tags after links move: MOVES links leave the folder and as many join it, the same for the tag,
  // through the link write's own move (moveLinkGroups): the SQL store shifts group rows, ClickHouse reads
  // the moved links' per-link rows as corrections (src/analytics/clickhouse/group-corrections.ts).
  if (MOVES > 0) {
    await moveLinks(store, data);
    for (const [label, fn] of cases.slice(2, 6)) {
      const moved = `${label.replace('/v1/analytics', '')}, ${MOVES * 2} moved`;
      const { median, p90 } = await time(fn);
      figures.views[moved] = median;
      console.log(
        `${moved.padEnd(40)} median ${median.toFixed(1).padStart(7)} ms   p90 ${p90.toFixed(1).padStart(7)} ms`,
      );
    }
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
      ...(target
        ? { write: target.repo.writeClicks, prune: target.repo.pruneBatchIds, idEveryBatch: true }
        : {}),
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
    figures.writer[label] = written / seconds;
    console.log(
      `batch writer, ${label}: ${written} clicks in ${seconds.toFixed(2)} s = ${Math.round(written / seconds)} clicks/s`,
    );
  }
  return results;
}

const dir = mkdtempSync(join(tmpdir(), 'linkhop-bench-analytics-'));
if (TARGETS.has('sqlite')) {
  try {
    const sqlite = openStore(`sqlite:${join(dir, 'bench.db')}`, { sqliteCacheMb });
    // dbstat (compiled into better-sqlite3's SQLite) gives each table's and index's pages, as PostgreSQL's
    // pg_total_relation_size does below: the raw clicks apart from the rollups.
    await benchStore('SQLite', sqlite, async () => {
      const raw = sqlite.sqlite
        .prepare("select sum(pgsize) as bytes from dbstat where name like 'click_blocks%'")
        .get().bytes;
      const bytes = fileSize(join(dir, 'bench.db'));
      return {
        bytes,
        line: `SQLite file: ${(bytes / 1e6).toFixed(0)} MB, raw clicks (click_blocks and its indexes) ${(raw / 1e6).toFixed(0)} MB`,
      };
    });
    await sqlite.close();
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

const postgresUrl = process.env.DATABASE_URL_TEST;
if (!TARGETS.has('postgres')) {
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
      const bytes = Number(size.rows[0].bytes);
      return {
        bytes,
        line: `PostgreSQL schema: ${(bytes / 1e6).toFixed(0)} MB, raw click partitions ${(Number(blocks.rows[0].bytes) / 1e6).toFixed(0)} MB`,
      };
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

if (TARGETS.has('clickhouse')) await benchClickhouse();
printSideBySide();

/** ClickHouse: a server (BENCH_CLICKHOUSE_URL, or one started here), a fresh database, the same bench. */
async function benchClickhouse() {
  const { openClickhouseAnalytics } = await import(`${DIST}analytics/clickhouse/store.js`);
  const { createClickhouseClient } = await import(`${DIST}analytics/clickhouse/client.js`);
  const { parseClickhouseUrl } = await import(`${DIST}store/clickhouse-url.js`);
  const { outcomeRow } = await import(`${DIST}analytics/clickhouse/rows.js`);
  const server = process.env.BENCH_CLICKHOUSE_URL ? null : await startClickhouseServer();
  const database = `bench_${Date.now().toString(36)}`;
  const base = process.env.BENCH_CLICKHOUSE_URL ?? `clickhouse://default@127.0.0.1:${server.port}/x`;
  const url = base.replace(/\/[^/]*$/, `/${database}`);
  const chDir = mkdtempSync(join(tmpdir(), 'linkhop-bench-ch-main-'));
  const main = openStore(`sqlite:${join(chDir, 'main.db')}`, { sqliteCacheMb });
  const opened = await openClickhouseAnalytics(url, main, { requestTimeoutMs: 600_000 });
  const client = createClickhouseClient({ ...parseClickhouseUrl(url), requestTimeoutMs: 600_000 });
  try {
    await benchStore(
      'ClickHouse',
      main,
      async () => {
        const parts = await client.rows(
          `SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS n, count() AS parts FROM system.parts
           WHERE database = '${database}' AND active GROUP BY table ORDER BY table`,
        );
        const bytes = parts.reduce((sum, part) => sum + Number(part.bytes), 0);
        const clicks = Number(parts.find((part) => part.table === 'clicks')?.bytes ?? 0);
        return {
          bytes,
          line: `ClickHouse database: ${(bytes / 1e6).toFixed(0)} MB (system.parts bytes_on_disk), raw clicks ${(clicks / 1e6).toFixed(0)} MB; ${parts.map((part) => `${part.table} ${part.n} rows in ${part.parts} parts`).join(', ')}`,
        };
      },
      {
        repo: opened.store,
        /** The same clicks and outcomes as the SQL seed; the time in writeClicks is the ingestion figure. */
        async seed(store) {
          const data = await seedLinks(store);
          const { orgId, random } = data;
          const stamps = new Map(
            data.links.map((link, i) => [
              link.id,
              [...(link.folder_id ? [`f:${link.folder_id}`] : []), ...(i % 5 === 0 ? ['t:promo'] : [])],
            ]),
          );
          const tapCount = { n: 0 };
          const today = Math.floor(NOW / DAY);
          let outcomes = 0;
          let writeMs = 0;
          const seedStarted = Date.now();
          for (let d = 89; d >= 0; d--) {
            const clicks = dayClicks(data, d, random, tapCount);
            const rows = [];
            for (const click of clicks) {
              const o = seededOutcome(click, orgId, today - d, random);
              // Stamped as the writer stamps an outcome: its link's folder and tags (none moved here).
              if (o) rows.push(outcomeRow(o, stamps.get(o.linkId)));
            }
            const started = performance.now();
            for (let i = 0; i < clicks.length; i += CH_BATCH)
              await opened.store.writeClicks(clicks.slice(i, i + CH_BATCH), `seed-${d}-${i}`);
            writeMs += performance.now() - started;
            for (let i = 0; i < rows.length; i += 100_000)
              await client.insert(`${database}.outcomes`, rows.slice(i, i + 100_000));
            outcomes += rows.length;
            if (d % 10 === 0)
              process.stdout.write(
                `  seeded day -${d} (${((Date.now() - seedStarted) / 1000).toFixed(0)} s)\n`,
              );
          }
          return { ...data, outcomes, ingestion: CLICKS / (writeMs / 1000) };
        },
      },
    );
  } finally {
    await opened.close();
    if (!process.env.BENCH_KEEP) await client.command(`DROP DATABASE IF EXISTS ${database}`);
    await client.close();
    await main.close();
    if (!process.env.BENCH_KEEP) rmSync(chDir, { recursive: true, force: true });
    else console.log(`kept ClickHouse database ${database} and its main database ${chDir}/main.db`);
    await server?.stop();
  }
}

/** A clickhouse-server for the bench alone: a temporary folder, HTTP on a free port, killed after. */
async function startClickhouseServer() {
  const { spawn } = await import('node:child_process');
  const { createServer } = await import('node:net');
  const { existsSync, writeFileSync } = await import('node:fs');
  const bin = [process.env.CLICKHOUSE_BIN, '/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server'].find(
    (path) => path && existsSync(path),
  );
  if (!bin) throw new Error('no clickhouse-server (set CLICKHOUSE_BIN or BENCH_CLICKHOUSE_URL)');
  const port = await new Promise((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
  const home = mkdtempSync(join(tmpdir(), 'linkhop-bench-ch-'));
  writeFileSync(
    join(home, 'config.xml'),
    `<?xml version="1.0"?><yandex><logger><level>warning</level><log>${home}/server.log</log><errorlog>${home}/server.err.log</errorlog></logger>
<listen_host>127.0.0.1</listen_host><http_port>${port}</http_port><path>${home}/data/</path><tmp_path>${home}/tmp/</tmp_path>
<user_files_path>${home}/user_files/</user_files_path><format_schema_path>${home}/format_schemas/</format_schema_path>
<users_config>users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database>
<timezone>UTC</timezone><mark_cache_size>268435456</mark_cache_size><uncompressed_cache_size>268435456</uncompressed_cache_size></yandex>`,
  );
  writeFileSync(
    join(home, 'users.xml'),
    `<?xml version="1.0"?><yandex><profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
<users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
<quotas><default></default></quotas></yandex>`,
  );
  const child = spawn(
    bin,
    bin.endsWith('/clickhouse')
      ? ['server', `--config-file=${home}/config.xml`]
      : [`--config-file=${home}/config.xml`],
    {
      cwd: home,
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'SELECT version()' });
      if (response.ok) {
        console.log(`\nClickHouse ${(await response.text()).trim()} started on port ${port}`);
        break;
      }
    } catch {}
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('clickhouse-server did not start');
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    port,
    async stop() {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** PostgreSQL and ClickHouse (or whichever ran) in columns: each view's p50, ingestion, disk. */
function printSideBySide() {
  const names = Object.keys(summary);
  if (names.length < 2) return;
  const cell = (text) => String(text).padStart(14);
  console.log(
    `\n== side by side, ${CLICKS} clicks over ${LINKS} links\n${''.padEnd(42)}${names.map(cell).join('')}`,
  );
  const views = Object.keys(summary[names[0]].views);
  for (const view of views)
    console.log(
      `${view.padEnd(42)}${names.map((name) => cell(`${summary[name].views[view]?.toFixed(1)} ms`)).join('')}`,
    );
  for (const label of Object.keys(summary[names[0]].writer))
    console.log(
      `${`batch writer, ${label}`.padEnd(42)}${names.map((name) => cell(`${Math.round(summary[name].writer[label] ?? 0)}/s`)).join('')}`,
    );
  console.log(
    `${'seed ingestion (ClickHouse: writeClicks)'.padEnd(42)}${names.map((name) => cell(summary[name].ingestion ? `${Math.round(summary[name].ingestion)}/s` : '-')).join('')}`,
  );
  console.log(
    `${'disk per million clicks'.padEnd(42)}${names.map((name) => cell(`${(summary[name].perMillion / 1e6).toFixed(1)} MB`)).join('')}`,
  );
}
