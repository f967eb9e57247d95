import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { childEnv } from '../helpers/env.js';
import { UA } from '../helpers/user-agents.js';

/**
 * The fault suites' harness: real `linkhop serve` processes (the built CLI, its click writer thread, its
 * own pools), a throwaway PostgreSQL database, plain HTTP traffic that counts what it sent and what came
 * back, and a click counter that reads the database directly. Point DATABASE_URL / REDIS_URL of the
 * instances at a TCP proxy (test/helpers/tcp-proxy.ts) to cut a dependency under them.
 */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
/** Node's flags from `npm start`: instances run as users run them (the soak measures their memory). */
const START_FLAGS = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));
export const SESSION_SECRET = 'fault-suite-session-secret-0123456789';
const postgresUrl = process.env.DATABASE_URL_TEST;

/** A database of its own (not a schema: a spawned server works in the default search path). */
export interface FaultDatabase {
  /** Direct URL (not through a proxy). */
  url: string;
  drop(): Promise<void>;
}

export async function createFaultDatabase(): Promise<FaultDatabase> {
  if (!postgresUrl) throw new Error('DATABASE_URL_TEST is not set');
  const name = `lh_fault_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The CLI, synchronously, on the given database: one JSON object back. */
export function cli(args: string[], env: Record<string, string>): Record<string, string> {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: childEnv(env), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`linkhop ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}');
}

/** A legend organization (every power, the API) with its first API key. */
export function createOrg(databaseUrl: string): { orgId: string; apiKey: string } {
  const created = cli(['org', 'create', '--name', 'Fault Org', '--tier', 'legend'], {
    DATABASE_URL: databaseUrl,
  });
  return { orgId: String(created.orgId), apiKey: String(created.apiKey) };
}

export interface Instance {
  url: string;
  child: ChildProcess;
  /** Null while it runs; its exit code (or signal name) once it has exited. */
  readonly exit: number | string | null;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | string | null>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<number | string | null>;
}

export interface InstanceOptions {
  databaseUrl: string;
  redisUrl?: string;
  /** A folder of its own for spilled clicks (made when omitted, removed by stop/kill). */
  spillDir?: string;
  env?: Record<string, string>;
  /**
   * A folder for heap snapshots: the process writes one there on each SIGUSR2 (the soak compares them).
   * Off by default: a snapshot stops the process for seconds, which no fault test wants by accident.
   */
  heapSnapshotDir?: string;
}

/** `linkhop serve` on a free loopback port; resolves once it listens. */
export function startInstance(options: InstanceOptions): Promise<Instance> {
  const ownSpill = options.spillDir === undefined;
  const spillDir = options.spillDir ?? mkdtempSync(join(tmpdir(), 'linkhop-spill-'));
  const nodeArgs = [
    ...START_FLAGS,
    ...(options.heapSnapshotDir
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${options.heapSnapshotDir}`]
      : []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve'], {
    env: childEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      BASE_URL: 'https://lnk.example',
      SESSION_SECRET,
      DATABASE_URL: options.databaseUrl,
      SPILL_DIR: spillDir,
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      ...options.env,
    }),
  });
  let output = '';
  let exit: number | string | null = null;
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = code ?? signal ?? 'unknown';
      if (ownSpill) rmSync(spillDir, { recursive: true, force: true });
      resolve(exit);
    });
  });
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    // Keep the head (start-up) and the last 200 KB: enough to read a failure.
    if (output.length > 400_000) output = output.slice(0, 100_000) + output.slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return new Promise((resolve, reject) => {
    const onData = () => {
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(deadline);
      child.stdout?.off('data', onData);
      const instance: Instance = {
        url: match[1],
        child,
        get exit() {
          return exit;
        },
        output: () => output,
        async stop() {
          if (exit === null) child.kill('SIGTERM');
          return exited;
        },
        async kill() {
          if (exit === null) child.kill('SIGKILL');
          return exited;
        },
      };
      resolve(instance);
    };
    child.stdout?.on('data', onData);
    void exited.then((code) => reject(new Error(`linkhop serve exited with ${code}: ${output}`)));
    // Readiness is read from the info-level "listening" line: an instance that never prints it (a
    // LOG_LEVEL above info, a start that stalls) fails the test instead of hanging it.
    const deadline = setTimeout(() => {
      if (exit !== null) return;
      child.kill('SIGKILL');
      reject(new Error(`linkhop serve did not report listening within 30 s: ${output}`));
    }, 30_000);
    void exited.finally(() => clearTimeout(deadline));
  });
}

export interface HttpResult {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
  /** Why no answer came (status 0): the socket error's code, or `timeout`. */
  error?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/**
 * One HTTP request; a network failure resolves with status 0 and its `error` (callers count it). A GET
 * whose reused keep-alive socket the server had just closed (ECONNRESET before any answer) is sent once
 * more on a new connection, as browsers do and Node's http documentation recommends (`reusedSocket`):
 * that race is between the client's pool and the server's keep-alive timeout, not a failure of the service.
 */
export function http(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
  retried = false,
): Promise<HttpResult> {
  const started = performance.now();
  const method = options.method ?? 'GET';
  return new Promise((resolve) => {
    const failed = (error: string, body = '') =>
      resolve({ status: 0, body, headers: {}, ms: performance.now() - started, error });
    const req = request(
      url,
      { method, headers: options.headers, agent, timeout: options.timeoutMs ?? 10_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            headers: res.headers,
            ms: performance.now() - started,
          }),
        );
        res.on('error', (error: NodeJS.ErrnoException) => failed(error.code ?? error.message, body));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!retried && method === 'GET' && req.reusedSocket && error.code === 'ECONNRESET') {
        resolve(http(url, options, true));
        return;
      }
      failed(error.code ?? error.message);
    });
    req.end(options.body);
  });
}

/** Creates `count` links through an instance's /v1 API; their slugs. */
export async function createLinks(instance: Instance, apiKey: string, count: number): Promise<string[]> {
  const slugs: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await http(`${instance.url}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.com/fault/${i}` }),
    });
    if (response.status !== 201) throw new Error(`link not created: ${response.status} ${response.body}`);
    slugs.push((JSON.parse(response.body) as { slug: string }).slug);
  }
  return slugs;
}

export interface TrafficCounts {
  /** Visits answered with a status (each a click the service should record: human, desktop). */
  sent: number;
  /** 5xx answers and failed connections on known links. */
  fiveXx: number;
  failed: number;
  /** The first failures (up to 20): when (ms, performance.now()), which instance, and why. */
  failures: { at: number; instance: string; error: string; ms: number }[];
  byStatus: Record<number, number>;
  /** When each answered visit came back (ms, performance.now()), for loss bounds. */
  answeredAt: number[];
}

export interface Traffic {
  counts: TrafficCounts;
  /** Stops sending and resolves once every visit in flight is answered. */
  stop(): Promise<TrafficCounts>;
}

/**
 * Steady visits by a human desktop browser (each answered with a 302 and recorded as one click) to the
 * given slugs, spread over the instances, `concurrency` visits in flight, one every `pauseMs` per lane.
 */
export function startTraffic(
  instances: readonly Instance[],
  slugs: readonly string[],
  options: { concurrency?: number; pauseMs?: number } = {},
): Traffic {
  const counts: TrafficCounts = { sent: 0, fiveXx: 0, failed: 0, failures: [], byStatus: {}, answeredAt: [] };
  let running = true;
  let n = 0;
  const lane = async () => {
    while (running) {
      const i = n++;
      const instance = instances[i % instances.length] as Instance;
      const slug = slugs[i % slugs.length] as string;
      const result = await http(`${instance.url}/${slug}`, {
        headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
      });
      if (result.status === 0) {
        counts.failed += 1;
        if (counts.failures.length < 20)
          counts.failures.push({
            at: performance.now(),
            instance: instance.url,
            error: result.error ?? '',
            ms: result.ms,
          });
      } else {
        counts.sent += 1;
        counts.answeredAt.push(performance.now());
        counts.byStatus[result.status] = (counts.byStatus[result.status] ?? 0) + 1;
        if (result.status >= 500) counts.fiveXx += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 10));
    }
  };
  const lanes = Array.from({ length: options.concurrency ?? 4 }, lane);
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(lanes);
      return counts;
    },
  };
}

export interface ApiProbe {
  /** Every answer: status, `error` code when JSON, and how long it took. */
  results: { status: number; error: string | null; ms: number; at: number }[];
  stop(): Promise<ApiProbe['results']>;
}

/** An authenticated /v1 read every `intervalMs` (keep it under the rate limit: 120 a minute a key). */
export function startApiProbe(instance: Instance, apiKey: string, intervalMs = 700): ApiProbe {
  const results: ApiProbe['results'] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const result = await http(`${instance.url}/v1/links?limit=1`, {
        headers: { authorization: `Bearer ${apiKey}` },
        timeoutMs: 5000,
      });
      let error: string | null = null;
      try {
        error = (JSON.parse(result.body) as { error?: string }).error ?? null;
      } catch {
        // not JSON
      }
      results.push({ status: result.status, error, ms: result.ms, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    results,
    async stop() {
      running = false;
      await loop;
      return results;
    },
  };
}

/** Human clicks recorded for an organization: raw blocks and the rollup total, read directly. */
export async function countClicks(
  databaseUrl: string,
  orgId: string,
): Promise<{ raw: number; total: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const raw = await client.query(
      'select coalesce(sum(humans), 0)::int as n from click_blocks where org_id = $1',
      [orgId],
    );
    const total = await client.query(
      "select coalesce(sum(count), 0)::int as n from org_rollups where org_id = $1 and dimension = 'total'",
      [orgId],
    );
    return { raw: Number(raw.rows[0].n), total: Number(total.rows[0].n) };
  } finally {
    await client.end();
  }
}

/** Polls `check` every `everyMs` until it returns true or `timeoutMs` passes; the ms it took, or null. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check().catch(() => false)) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return null;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** With FAULT_LOG_DIR set, writes each instance's output there (`<name>-<i>.log`) to read a failure. */
export function saveLogs(instances: readonly Instance[], name: string): void {
  const dir = process.env.FAULT_LOG_DIR;
  if (!dir) return;
  for (const [i, instance] of instances.entries())
    writeFileSync(join(dir, `${name}-${i}.log`), instance.output());
}
