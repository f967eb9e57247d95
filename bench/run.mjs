// npm run bench: loads the bare node:http ceiling and the linkhop engine, one after the other, with
// wrk (or autocannon, see load.mjs) on loopback, and prints requests/s, p50/p99 latency and the ratio
// against the ceiling.
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generator, load } from './load.mjs';
import { SERVER_FLAGS } from './server-flags.mjs';
import { sleep, waitForHealth } from './wait-for-health.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
// Five: on a shared 2-core machine one round in three or four is off by 20 % or more either way.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TOKEN = 'bench-token';
// Another build to measure (e.g. a copy of dist/ from before a change, kept inside the repository so that
// its imports resolve): the same bench, side by side with the bare server, for a before/after pair.
const DIST = process.env.BENCH_DIST ?? 'dist';
const UA = {
  desktop:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  instagramAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.58 Mobile Safari/537.36 Instagram 355.1.0.44.103 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 658190016)',
};

/**
 * What each escape page still does per request. Everything else (escaping, the config JSON, the markup,
 * the pixels, the byte length, the CSP text) is compiled once per (link, cell, strategy), on the cell's
 * first visit, and dropped with the compiled link (src/redirect/respond.ts, page-bytes.ts).
 */
const PER_REQUEST = {
  engine:
    'engine escape page: per request = the head read by the redirect front (one latin1 decode, the lines ' +
    'checked and split), UA classification (LRU per user agent), escape plan (matrix lookup), ' +
    'compiled page lookup, nonce (16 random bytes from a pool), CSP header (2 nonce splices), page byte ' +
    'string joined around 3 nonces and written with the head in one latin1 copy; everything else ' +
    'precompiled per (link, cell, strategy)',
  hosted:
    'hosted escape page: per request = the head read by the redirect front, UA classification, destination ' +
    'choice, escape plan + bandit draw, ' +
    "compiled page lookup, nonce, CSP header, tap token (the visit's own fields as JSON + base64url after " +
    "the cell's prefix, encoded once per page; HMAC-SHA256 from precomputed pads), page byte string " +
    'joined around 3 nonces + 2 tokens, click record (ring); everything else precompiled per (link, cell, ' +
    'strategy)',
};

/** CPU seconds (user + system) a process has used so far, from /proc: the server's cost, not the client's. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function measure(name, url, userAgent, expectStatus, pid) {
  const check = await fetch(url, { headers: { 'user-agent': userAgent }, redirect: 'manual' });
  await check.arrayBuffer();
  const cpuBefore = cpuSeconds(pid);
  const result = await load({ url, connections: CONNECTIONS, duration: DURATION, userAgent });
  const cpu = cpuSeconds(pid) - cpuBefore;
  if (check.status !== expectStatus || result.errors > 0) {
    console.warn(`! ${name}: expected ${expectStatus}, got ${check.status}; errors ${result.errors}`);
  }
  return {
    name,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    cpuMicros: (cpu / Math.max(1, result.total)) * 1e6,
  };
}

function startServer(command, port, env) {
  return spawn(process.execPath, [...SERVER_FLAGS, `${DIST}/cli/main.js`, command], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** A legend organization and one link with UTM and routing, made the way a user would (CLI, then /v1). */
async function seedHosted(databaseUrl) {
  // The service migrates the database as it starts: the CLI must not race it on the same SQLite file.
  await waitForHealth('http://127.0.0.1:4503');
  const org = JSON.parse(
    execFileSync(
      process.execPath,
      [`${DIST}/cli/main.js`, 'org', 'create', '--name', 'Bench', '--tier', 'legend'],
      {
        env: { ...process.env, DATABASE_URL: databaseUrl },
        encoding: 'utf8',
      },
    ),
  );
  const response = await fetch('http://127.0.0.1:4503/v1/links', {
    method: 'POST',
    headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      slug: 'yt',
      utm: { source: 'instagram', medium: 'bio', campaign: 'launch' },
      routing: {
        ios: 'https://apps.apple.com/app/id544007664',
        geo: { DE: 'https://www.youtube.com/watch?v=de' },
      },
    }),
  });
  if (response.status !== 201) throw new Error(`hosted link: ${response.status} ${await response.text()}`);
}

async function main() {
  const bare = fork(new URL('./bare-server.mjs', import.meta.url), { env: { PORT: '4501' } });
  await new Promise((resolve) => bare.once('message', resolve));
  const dataDir = mkdtempSync(join(tmpdir(), 'linkhop-bench-'));
  const engine = startServer('engine', 4502, {
    API_TOKEN: TOKEN,
    DATABASE_URL: `sqlite:${join(dataDir, 'engine.db')}`,
  });
  const hostedDb = `sqlite:${join(dataDir, 'hosted.db')}`;
  const hosted = startServer('serve', 4503, { DATABASE_URL: hostedDb, BASE_URL: 'http://127.0.0.1:4503' });
  try {
    await seedHosted(hostedDb);
    await waitForHealth('http://127.0.0.1:4502');
    for (const [slug, url] of [
      ['yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      ['web', 'https://example.org/landing'],
    ]) {
      const response = await fetch('http://127.0.0.1:4502/api/links', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, slug }),
      });
      if (response.status !== 201) throw new Error(`create ${slug}: ${response.status}`);
    }

    // The bare server also serves byte-identical copies of both escape pages, each fetched once, so that
    // each page is compared with bare Node sending its own bytes (the hosted page is larger: tap token,
    // beacon config): the same body under the same headers (CSP, cache and content headers, one request's
    // nonce frozen in), Node adding Date and Keep-Alive to both.
    const storeOnBare = async (path, url) => {
      const response = await fetch(url, { headers: { 'user-agent': UA.instagramAndroid } });
      const page = await response.text();
      const headers = Object.fromEntries(
        [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
      );
      const stored = new Promise((resolve) => {
        const onMessage = (message) => {
          if (message?.stored !== path) return;
          bare.off('message', onMessage);
          resolve();
        };
        bare.on('message', onMessage);
      });
      bare.send({ path, page, headers });
      await stored;
      return Buffer.byteLength(page);
    };
    const pageBytes = {
      engine: await storeOnBare('/page', 'http://127.0.0.1:4502/yt'),
      hosted: await storeOnBare('/hosted-page', 'http://127.0.0.1:4503/yt'),
    };
    const BARE_301 = 'bare node:http 301';
    const BARE_ENGINE_PAGE = `bare node:http 200, engine page bytes (${pageBytes.engine} B)`;
    const BARE_HOSTED_PAGE = `bare node:http 200, hosted page bytes (${pageBytes.hosted} B)`;
    const ENGINE_PAGE = 'engine escape page (Instagram Android)';
    const HOSTED_PAGE = 'hosted escape page (Instagram Android)';
    // [name, url, user agent, expected status, server pid, the bare scenario its ratio is taken against]
    const scenarios = [
      [BARE_301, 'http://127.0.0.1:4501/yt', UA.desktop, 301, bare.pid, BARE_301],
      ['engine 301 (desktop)', 'http://127.0.0.1:4502/yt', UA.desktop, 301, engine.pid, BARE_301],
      [BARE_ENGINE_PAGE, 'http://127.0.0.1:4501/page', UA.instagramAndroid, 200, bare.pid, BARE_301],
      [ENGINE_PAGE, 'http://127.0.0.1:4502/yt', UA.instagramAndroid, 200, engine.pid, BARE_ENGINE_PAGE],
      [
        'engine 301 (phone, web link)',
        'http://127.0.0.1:4502/web',
        UA.instagramAndroid,
        301,
        engine.pid,
        BARE_301,
      ],
      [
        'hosted 302 (UTM + routing, desktop)',
        'http://127.0.0.1:4503/yt',
        UA.desktop,
        302,
        hosted.pid,
        BARE_301,
      ],
      [BARE_HOSTED_PAGE, 'http://127.0.0.1:4501/hosted-page', UA.instagramAndroid, 200, bare.pid, BARE_301],
      [HOSTED_PAGE, 'http://127.0.0.1:4503/yt', UA.instagramAndroid, 200, hosted.pid, BARE_HOSTED_PAGE],
    ];
    // Warm every server once, then measure in ROUNDS interleaved rounds: each ratio compares a scenario
    // with the bare run of its own round (the 301, or for an escape page the same bytes served bare), so
    // drift in the machine's speed cancels out; the median is kept.
    for (const [name, url, ua, status, pid] of scenarios) await measure(name, url, ua, status, pid);
    const runs = new Map(scenarios.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const thisRound = new Map();
      for (const [name, url, ua, status, pid, against] of scenarios) {
        const run = await measure(name, url, ua, status, pid);
        thisRound.set(name, run.rps);
        runs.get(name).push({ ...run, ratio: run.rps / thisRound.get(against) });
      }
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const rows = scenarios.map(([name, , , , , against]) => {
      const all = runs.get(name);
      const ratios = all.map((run) => run.ratio);
      return {
        name,
        against,
        rps: median(all.map((run) => run.rps)),
        p50: median(all.map((run) => run.p50)),
        p99: median(all.map((run) => run.p99)),
        ratio: median(ratios),
        // The spread of the rounds' ratios: on a noisy machine a median alone hides how far apart they were.
        ratioMin: Math.min(...ratios),
        ratioMax: Math.max(...ratios),
        cpuMicros: median(all.map((run) => run.cpuMicros)),
      };
    });

    // The goals of the issues that set them: the hosted 302 records every visit, so its goal is the
    // recording goal of issue 19 (0.85), which replaced the first hosted bench's 0.80.
    const targets = {
      'engine 301 (desktop)': 0.85,
      [ENGINE_PAGE]: 0.7,
      'hosted 302 (UTM + routing, desktop)': 0.85,
      [HOSTED_PAGE]: 0.6,
    };
    console.log(
      `\nlinkhop bench: ${generator}, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION}s, medians\n`,
    );
    console.log(
      'scenario'.padEnd(52),
      'req/s'.padStart(10),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'ratio'.padStart(7),
      'rounds'.padStart(11),
      'target'.padStart(12),
      'server CPU µs/req'.padStart(18),
    );
    for (const row of rows) {
      const target = targets[row.name];
      const verdict =
        target === undefined ? '' : `${row.ratio >= target && row.p99 < 10 ? 'met' : 'MISSED'} ≥${target}`;
      console.log(
        row.name.padEnd(52),
        row.rps.toFixed(0).padStart(10),
        row.p50.toFixed(1).padStart(8),
        row.p99.toFixed(1).padStart(8),
        row.ratio.toFixed(2).padStart(7),
        `${row.ratioMin.toFixed(2)}-${row.ratioMax.toFixed(2)}`.padStart(11),
        verdict.padStart(12),
        row.cpuMicros.toFixed(1).padStart(18),
      );
    }
    console.log(
      '\nratio: req/s against the bare run of the same round: the bare 301, and for each escape page bare\n' +
        "node:http sending that page's own bytes; rounds: the lowest and highest of the rounds' ratios. The\n" +
        'load generator shares the 2 cores, so the server CPU column (from /proc) shows what each request\n' +
        "costs the server itself. linkhop's servers read visits with their redirect front\n" +
        '(src/redirect/redirect-front.ts), not node:http; the bare servers are plain node:http, the baseline\n' +
        'the issues set.',
    );
    console.log(`\n${PER_REQUEST.engine}\n${PER_REQUEST.hosted}`);
    console.log(`\n${JSON.stringify({ bench: 'redirect', generator, pageBytes, rows })}`);
  } finally {
    bare.kill();
    engine.kill('SIGTERM');
    hosted.kill('SIGTERM');
    await sleep(300);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
