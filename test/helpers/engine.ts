import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { composeEngine } from '../../src/compose/engine.js';
import type { EngineApp } from '../../src/engine/app.js';
import { parseEngineConfig } from '../../src/engine/config.js';
import { type EngineStore, openEngineStore } from '../../src/engine/store.js';
import { sqliteKind, type TestStore } from './stores.js';

export type RunningEngine = Awaited<ReturnType<typeof startEngine>>;
export type ServedEngine = Awaited<ReturnType<typeof serveEngine>>;

/**
 * The engine's own store (no Kysely, engine/store.ts) on a migrated test store's database (its schema on
 * PostgreSQL), or on `url` when given (the same database through a proxy). The caller closes it.
 */
export function engineStoreOn(testStore: TestStore, url = testStore.url): EngineStore {
  return openEngineStore(url, testStore.schema ? { schema: testStore.schema } : {});
}

/** A self-hosted engine on SQLite, listening on a free loopback port (API token `t`). */
export async function startEngine() {
  const testStore = await sqliteKind.create();
  const store = engineStoreOn(testStore);
  const app = await composeEngine(
    parseEngineConfig({ API_TOKEN: 't', BASE_URL: 'https://s.example' }),
    store,
    pino({ level: 'silent' }),
  );
  const served = await serveEngine(app);
  return {
    app,
    port: served.port,
    origin: served.origin,
    inject: served.inject,
    async close() {
      await served.close();
      await store.close();
      await testStore.dispose();
    },
  };
}

export interface InjectRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** A string is sent as it is; anything else as JSON, with its content type (as Fastify's inject did). */
  payload?: unknown;
}

export interface InjectResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any field of the JSON it got back.
  json(): any;
}

export type Inject = (request: InjectRequest) => Promise<InjectResponse>;

/**
 * An engine app listening on a free loopback port, and `inject`: one real HTTP request per call over a
 * keep-alive connection (so the redirect front and the fast path answer what they would in production).
 * The engine has no Fastify, so no in-memory inject; this is the same call shape over the wire.
 */
export async function serveEngine(app: EngineApp) {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true });
  const inject: Inject = ({ method = 'GET', url, headers = {}, payload }) =>
    new Promise((resolve, reject) => {
      const sent = { ...headers };
      let body: string | undefined;
      if (typeof payload === 'string') body = payload;
      else if (payload !== undefined) {
        body = JSON.stringify(payload);
        sent['content-type'] ??= 'application/json';
      }
      if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body));
      const outgoing = request(
        { host: '127.0.0.1', port, method, path: url, headers: sent, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              statusCode: res.statusCode ?? 0,
              headers: res.headers,
              body: text,
              json: () => JSON.parse(text),
            });
          });
          res.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    inject,
    async close() {
      agent.destroy();
      await app.close();
    },
  };
}
