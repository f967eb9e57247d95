// node bench/health-redirects.mjs (after `npm run build`): does the destination checker (issue #33) cost
// the redirect anything? Two hosted services on SQLite, seeded alike with BENCH_HEALTH_LINKS links (default
// 20,000) over as many destinations on BENCH_HEALTH_HOSTS loopback hosts (default one per destination, the
// checker's busiest case: no host makes it wait; addresses across 127/8, all served by one HTTP server
// here), all due for a check: one with HEALTH_CHECKS=off, one with the checker running flat out at
// its production pace (8 hosts side by side, one request a second per host, history rows and all). In
// interleaved rounds, the hosted 302 of each is loaded with wrk beside the bare node:http 301 of the same
// round (the baseline); the report gives both ratios, their quotient (checker on / off), the checks made
// meanwhile, and each server's RSS after every round (flat or not).
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDestinations } from './health-seed.mjs';
import { generator, load } from './load.mjs';
import { SERVER_FLAGS } from './server-flags.mjs';
import { sleep, waitForHealth } from './wait-for-health.mjs';

const DIST = process.env.BENCH_DIST ?? 'dist';
const LINKS = Number(process.env.BENCH_HEALTH_LINKS ?? 20_000);
const HOSTS = Number(process.env.BENCH_HEALTH_HOSTS ?? LINKS);
/** The n-th loopback address, from 127.0.1.1 on, skipping .0 and .255. */
const loopback = (n) => {
  const low = n % 254;
  const rest = Math.floor(n / 254);
  return `127.${Math.floor(rest / 256) % 256}.${(rest % 256) + 1}.${low + 1}`;
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PORTS = { bare: 4531, off: 4532, on: 4533 };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rssMb = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return line ? Math.round((Number(line[1]) * 1024) / 1e6) : Number.NaN;
};

// Every checked destination answers 200, so nothing turns down and no event or mail is due: the cost
// measured is the checker's own (leases, requests, history rows, next check times).
let checks = 0;
const target = createServer((_req, res) => {
  checks++;
  res.writeHead(200).end();
});
await new Promise((done) => target.listen(0, '0.0.0.0', done));
const targetPort = target.address().port;

const { openStore, migrateToLatest } = await import(`../${DIST}/store/database.js`);
const { destinationKey } = await import(`../${DIST}/health/key.js`);

/** A migrated SQLite file with LINKS links over LINKS destinations, every one due for a check now. */
async function seed(file) {
  const store = openStore(`sqlite:${file}`);
  await migrateToLatest(store);
  const hostOf = (i) => `${loopback(i % HOSTS)}:${targetPort}`;
  seedDestinations(store.sqlite, {
    links: LINKS,
    destinations: LINKS,
    urlOf: (i) => `http://${hostOf(i)}/d${i}`,
    hostOf,
    destinationKey,
    nowIso: new Date().toISOString(),
  });
  await store.close();
}

function startHosted(port, file, env) {
  return spawn(process.execPath, [...SERVER_FLAGS, `${DIST}/cli/main.js`, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${file}`,
      BASE_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** The benched link, made as a user would: an organization from the CLI, the link through /v1. */
async function createLink(port, file) {
  const org = JSON.parse(
    execFileSync(
      process.execPath,
      [`${DIST}/cli/main.js`, 'org', 'create', '--name', 'Bench', '--tier', 'legend'],
      {
        env: { ...process.env, DATABASE_URL: `sqlite:${file}` },
        encoding: 'utf8',
      },
    ),
  );
  const response = await fetch(`http://127.0.0.1:${port}/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      slug: 'yt',
      utm: { source: 'instagram', medium: 'bio', campaign: 'launch' },
    }),
  });
  if (response.status !== 201)
    throw new Error(`link on ${port}: ${response.status} ${await response.text()}`);
}

async function measure(url) {
  const result = await load({ url, connections: CONNECTIONS, duration: DURATION, userAgent: DESKTOP });
  if (result.errors > 0) console.warn(`! ${url}: ${result.errors} errors`);
  return result;
}

const dir = mkdtempSync(join(tmpdir(), 'linkhop-health-redirects-'));
const files = { off: join(dir, 'off.db'), on: join(dir, 'on.db') };
const started = performance.now();
await seed(files.off);
await seed(files.on);
console.log(
  `seeded two stores with ${LINKS} links on ${HOSTS} hosts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const bare = fork(new URL('./bare-server.mjs', import.meta.url), { env: { PORT: String(PORTS.bare) } });
await new Promise((resolve) => bare.once('message', resolve));
const servers = {
  off: startHosted(PORTS.off, files.off, { HEALTH_CHECKS: 'off' }),
  on: startHosted(PORTS.on, files.on, { HEALTH_CHECKS: 'on', HEALTH_ALLOW_PRIVATE_TARGETS: '1' }),
};
try {
  for (const name of ['off', 'on']) {
    await waitForHealth(`http://127.0.0.1:${PORTS[name]}`, 400);
    await createLink(PORTS[name], files[name]);
  }
  const urls = {
    bare: `http://127.0.0.1:${PORTS.bare}/yt`,
    off: `http://127.0.0.1:${PORTS.off}/yt`,
    on: `http://127.0.0.1:${PORTS.on}/yt`,
  };
  for (const url of Object.values(urls)) await measure(url);
  const checksBefore = checks;
  const rounds = [];
  const benchStarted = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const bareRun = await measure(urls.bare);
    const off = await measure(urls.off);
    const on = await measure(urls.on);
    rounds.push({
      bare: bareRun.rps,
      off: off.rps / bareRun.rps,
      on: on.rps / bareRun.rps,
      p99: { off: off.p99, on: on.p99 },
      rss: { off: rssMb(servers.off.pid), on: rssMb(servers.on.pid) },
      checks,
    });
    console.log(
      `round ${round + 1}: bare ${bareRun.rps.toFixed(0)} req/s; checker off ${off.rps.toFixed(0)} (${(off.rps / bareRun.rps).toFixed(2)}), ` +
        `on ${on.rps.toFixed(0)} (${(on.rps / bareRun.rps).toFixed(2)}); RSS off ${rounds.at(-1).rss.off} MB, on ${rounds.at(-1).rss.on} MB; ${checks - checksBefore} checks so far`,
    );
  }
  const seconds = (performance.now() - benchStarted) / 1000;
  const result = {
    bench: 'health-redirects',
    generator,
    links: LINKS,
    hosts: HOSTS,
    rounds: ROUNDS,
    ratioOff: Number(median(rounds.map((r) => r.off)).toFixed(3)),
    ratioOn: Number(median(rounds.map((r) => r.on)).toFixed(3)),
    onOverOff: Number(median(rounds.map((r) => r.on / r.off)).toFixed(3)),
    onOverOffRange: [
      Number(Math.min(...rounds.map((r) => r.on / r.off)).toFixed(3)),
      Number(Math.max(...rounds.map((r) => r.on / r.off)).toFixed(3)),
    ],
    p99Ms: { off: median(rounds.map((r) => r.p99.off)), on: median(rounds.map((r) => r.p99.on)) },
    checks: checks - checksBefore,
    checksPerSecond: Number(((checks - checksBefore) / seconds).toFixed(1)),
    rssMb: { off: rounds.map((r) => r.rss.off), on: rounds.map((r) => r.rss.on) },
  };
  console.log(
    `\nhosted 302 against bare node:http, medians of ${ROUNDS} rounds of ${DURATION} s (${generator}): checker off ` +
      `${result.ratioOff}, on ${result.ratioOn}; on / off ${result.onOverOff} (rounds ${result.onOverOffRange.join('-')}); ` +
      `${result.checks} checks meanwhile (${result.checksPerSecond}/s); RSS per round, on: ${result.rssMb.on.join(' ')} MB, off: ${result.rssMb.off.join(' ')} MB`,
  );
  console.log(JSON.stringify(result));
} finally {
  bare.kill();
  servers.off.kill('SIGTERM');
  servers.on.kill('SIGTERM');
  target.close();
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
