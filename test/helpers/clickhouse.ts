import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A ClickHouse server for tests, started as an ordinary process: its own temporary data and config
 * folder, HTTP only (no native TCP or interserver port, so nothing can clash with a system server) on a
 * free loopback port, killed and its folder removed after. One server per test file, shared by the
 * file's tests; each test file (or suite) makes its own database on it.
 *
 * The binary is Debian's `clickhouse-server` (18.16 in bookworm) or a `clickhouse` multi-call binary
 * (`clickhouse server`), or CLICKHOUSE_BIN. Without one the ClickHouse suites are skipped with a reason.
 */

/** How to start the server: the executable and the arguments before `--config-file`. */
function findServer(): { bin: string; args: string[] } | null {
  const fromEnv = process.env.CLICKHOUSE_BIN;
  if (fromEnv) return existsSync(fromEnv) ? commandOf(fromEnv) : null;
  for (const bin of ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server', '/usr/bin/clickhouse']) {
    if (existsSync(bin)) return commandOf(bin);
  }
  return null;
}

const commandOf = (bin: string) => ({ bin, args: bin.endsWith('/clickhouse') ? ['server'] : [] });

const server = findServer();

export const clickhouseKind = {
  name: 'clickhouse' as const,
  skipReason: server
    ? null
    : 'no clickhouse-server binary (apt-get install clickhouse-server, or set CLICKHOUSE_BIN): ClickHouse suites skipped',
};
if (clickhouseKind.skipReason) console.warn(`[linkhop tests] ${clickhouseKind.skipReason}`);

export interface TestClickhouse {
  /** `http://127.0.0.1:<port>`, user `default`, no password. */
  httpUrl: string;
  port: number;
  /** `clickhouse://default@127.0.0.1:<port>/<database>` for a fresh database name (not created). */
  urlFor(database: string): string;
  /** A fresh database name (`t_<hex>`), created on the server. */
  createDatabase(): Promise<string>;
  /** Runs one statement over HTTP (test set-up and inspection only). */
  query(sql: string): Promise<string>;
  /** Milliseconds from spawn to the first answered `SELECT 1`. */
  startMs: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function configXml(dir: string, port: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/server.err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${port}</http_port>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default></default></quotas>
</yandex>
`;

async function httpQuery(port: number, sql: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: sql });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse ${response.status}: ${text.trim()}`);
  return text;
}

/** Polls `SELECT 1` until it answers, the process exits, or `timeoutMs` passes. */
async function waitUntilUp(child: ChildProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`clickhouse-server exited (${child.exitCode ?? child.signalCode})`);
    try {
      if ((await httpQuery(port, 'SELECT 1')).trim() === '1') return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`clickhouse-server did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function startOnce(): Promise<TestClickhouse> {
  if (!server) throw new Error(clickhouseKind.skipReason ?? 'no clickhouse-server');
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-ch-'));
  const port = await freePort();
  writeFileSync(join(dir, 'config.xml'), configXml(dir, port));
  writeFileSync(join(dir, 'users.xml'), USERS_XML);
  const started = performance.now();
  const child = spawn(server.bin, [...server.args, `--config-file=${join(dir, 'config.xml')}`], {
    cwd: dir,
    stdio: 'ignore',
  });
  // A worker that exits without its afterAll (a crash, a timeout) leaves no server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const cleanup = () => {
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(child, port, 20_000);
  } catch (error) {
    child.kill('SIGKILL');
    cleanup();
    throw error;
  }
  const startMs = Math.round(performance.now() - started);
  return {
    httpUrl: `http://127.0.0.1:${port}`,
    port,
    startMs,
    urlFor: (database) => `clickhouse://default@127.0.0.1:${port}/${database}`,
    async createDatabase() {
      const name = `t_${randomBytes(6).toString('hex')}`;
      await httpQuery(port, `CREATE DATABASE ${name}`);
      return name;
    },
    query: (sql) => httpQuery(port, sql),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      cleanup();
    },
  };
}

/**
 * Starts a server; a port taken between the probe and the server's bind (another suite's server) makes
 * it exit at once, so a start is tried three times.
 */
export async function startClickhouse(): Promise<TestClickhouse> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce();
    } catch (error) {
      last = error;
    }
  }
  throw last;
}
