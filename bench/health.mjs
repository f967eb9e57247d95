// node bench/health.mjs (after `npx tsc -p tsconfig.build.json`): one full pass of the destination checker
// (issue #33) over BENCH_HEALTH_LINKS links (default 1,000,000) pointing at BENCH_HEALTH_DESTINATIONS
// distinct destinations (100,000) on BENCH_HEALTH_HOSTS hosts (2,000), served by one HTTP server on
// loopback (every host name resolves to 127.0.0.1 through the fetcher's lookup seam), on SQLite.
//
// The checker is the production one (src/health/service.ts: leases per host, HEAD, the history rows, the
// next check's time); only its waits are simulated: the one second between two requests to a host is added
// to that host's simulated time instead of slept, so the pass runs as fast as the machine allows and the
// report says both how long it took here and how long it takes at the per-host limit (hosts checked side
// by side, HOSTS_PER_PASS at a time on one instance). Memory is sampled every second during the pass.
// LINKHOP_DIST=<folder> runs another build (a copy of dist/ from before a change) for a before/after.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedDestinations } from './health-seed.mjs';

const DIST = process.env.LINKHOP_DIST
  ? `${pathToFileURL(resolve(process.env.LINKHOP_DIST)).href}/`
  : new URL('../dist/', import.meta.url).href;
const LINKS = Number(process.env.BENCH_HEALTH_LINKS ?? 1_000_000);
const DESTINATIONS = Number(process.env.BENCH_HEALTH_DESTINATIONS ?? 100_000);
const HOSTS = Number(process.env.BENCH_HEALTH_HOSTS ?? 2_000);
/** What one instance checks side by side (HOSTS_PER_PASS in src/health/service.ts). */
const SIDE_BY_SIDE = 8;

const { openStore, migrateToLatest } = await import(`${DIST}store/database.js`);
const { destinationKey } = await import(`${DIST}health/key.js`);
const { createHealthRepo } = await import(`${DIST}health/repo.js`);
const { createHealthChecker, CHECKS_PER_SECOND = Number.POSITIVE_INFINITY } = await import(
  `${DIST}health/service.js`
);
const { createGuardedFetcher } = await import(`${DIST}net/guarded-fetch.js`);

const mb = (bytes) => Math.round(bytes / 1048576);
const dir = mkdtempSync(join(tmpdir(), 'linkhop-health-bench-'));
let served = 0;
const server = createServer((_req, res) => {
  served++;
  res.writeHead(200).end();
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const port = server.address().port;
const destinationOf = (i) => `http://h${i % HOSTS}.bench.test:${port}/d${i}`;

const store = openStore(`sqlite:${join(dir, 'bench.db')}`);
await migrateToLatest(store);
const sqlite = store.sqlite;
const T0 = Date.now();
const started = performance.now();
seedDestinations(sqlite, {
  links: LINKS,
  destinations: DESTINATIONS,
  urlOf: destinationOf,
  hostOf: (i) => `h${i % HOSTS}.bench.test:${port}`,
  destinationKey,
  nowIso: new Date(T0).toISOString(),
});
const seeded = (performance.now() - started) / 1000;
console.log(`seeded ${LINKS} links, ${DESTINATIONS} destinations, ${HOSTS} hosts in ${seeded.toFixed(1)} s`);

// The service's clock: frozen during a drain, moved one second after it (every host's lease then ends).
let simNow = T0;
const fetcher = createGuardedFetcher({ allowPrivate: true, lookup: async () => ['127.0.0.1'] });
const checker = createHealthChecker({
  repo: createHealthRepo(store.db, store.dialect),
  fetcher,
  signals: [],
  now: () => simNow,
  token: randomUUID,
  describe: async () => null,
  events: { emitIn: async () => 0, nudge() {} },
  invalidate() {},
  onError: (error) => console.error(error),
  // Simulated: not slept (see the head of this file); the time at the limit is computed below.
  sleep: async () => {},
});

global.gc?.();
const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}, 1000);
// BENCH_HEALTH_PASSES full passes (default 1), a simulated day apart (every destination is quiet: daily),
// each drained until nothing is due; RSS after each, collected, says whether memory stays flat.
const PASSES = Number(process.env.BENCH_HEALTH_PASSES ?? 1);
const due = sqlite.prepare('select count(*) as n from destinations where next_check_at <= ?');
let drains = 0;
let passSeconds = 0;
const rssAfterPass = [];
for (let pass = 0; pass < PASSES; pass++) {
  simNow = T0 + pass * 86_400_000 + 1000;
  const passStarted = performance.now();
  while (Number(due.get(new Date(simNow).toISOString()).n) > 0) {
    await checker.runNow();
    simNow += 1000;
    drains++;
  }
  if (pass === 0) passSeconds = (performance.now() - passStarted) / 1000;
  global.gc?.();
  rssAfterPass.push(mb(process.memoryUsage().rss));
  if (PASSES > 1)
    console.log(
      `pass ${pass + 1}: ${((performance.now() - passStarted) / 1000).toFixed(1)} s, RSS ${rssAfterPass.at(-1)} MB`,
    );
}
clearInterval(sampler);
const rssAfter = process.memoryUsage().rss;

const checked = Number(sqlite.prepare("select count(*) as n from destinations where state = 'ok'").get().n);
const history = Number(sqlite.prepare('select count(*) as n from destination_checks').get().n);
// At the limits: every host's checks one second apart (the first needs no wait), SIDE_BY_SIDE hosts at
// once, and no more than CHECKS_PER_SECOND checks a second on the instance, whichever takes longer.
const perHost = DESTINATIONS / HOSTS;
const hostBound = (HOSTS / SIDE_BY_SIDE) * Math.max(0, perHost - 1) + HOSTS / SIDE_BY_SIDE;
const simulatedHours = Math.max(hostBound, DESTINATIONS / CHECKS_PER_SECOND) / 3600;
const result = {
  bench: 'health',
  links: LINKS,
  destinations: DESTINATIONS,
  hosts: HOSTS,
  checked,
  requests: served,
  historyRows: history,
  drains,
  passSeconds: Number(passSeconds.toFixed(1)),
  checksPerSecond: Math.round(checked / passSeconds),
  simulatedPassHours: Number(simulatedHours.toFixed(2)),
  rssMb: { before: mb(rssBefore), peak: mb(rssPeak), after: mb(rssAfter), afterEachPass: rssAfterPass },
};
console.log(
  `first full pass: ${checked} of ${DESTINATIONS} destinations checked (${served} requests over ${PASSES} passes) in ${passSeconds.toFixed(1)} s here ` +
    `(${result.checksPerSecond} checks/s); at one request a second per host, ${SIDE_BY_SIDE} hosts at a time, ${CHECKS_PER_SECOND} checks/s: ` +
    `${result.simulatedPassHours} h (goal: under 24 h); RSS ${result.rssMb.before} -> peak ${result.rssMb.peak} -> ${result.rssMb.after} MB`,
);
console.log(JSON.stringify(result));
await fetcher.close();
await store.close();
server.close();
rmSync(dir, { recursive: true, force: true });
