import { connect } from 'node:net';
import pg from 'pg';

/**
 * `npm test` runs the PostgreSQL and Redis variants whenever those servers answer on their standard local
 * ports (issue #21): DATABASE_URL_TEST and REDIS_URL_TEST are filled in here, in Vitest's main process
 * before any worker starts, so every worker inherits them. A variable already set (even to '') wins: set
 * `DATABASE_URL_TEST=` to run without PostgreSQL on a machine that has one.
 */

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function redisAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function detectLocalServices(): Promise<void> {
  const found: string[] = [];
  if (process.env.DATABASE_URL_TEST === undefined && (await postgresAnswers(LOCAL_POSTGRES))) {
    process.env.DATABASE_URL_TEST = LOCAL_POSTGRES;
    found.push(`PostgreSQL (${LOCAL_POSTGRES})`);
  }
  if (process.env.REDIS_URL_TEST === undefined && (await redisAnswers('127.0.0.1', 6379))) {
    process.env.REDIS_URL_TEST = LOCAL_REDIS;
    found.push(`Redis (${LOCAL_REDIS})`);
  }
  if (found.length > 0) console.info(`[test] found on their standard ports: ${found.join(', ')}`);
}
