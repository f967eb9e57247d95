import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { composeEngine } from '../../src/compose/engine.js';
import { parseConfig } from '../../src/config.js';
import { sqliteKind } from './stores.js';

export type RunningEngine = Awaited<ReturnType<typeof startEngine>>;

/** A self-hosted engine on SQLite, listening on a free loopback port (API token `t`). */
export async function startEngine() {
  const testStore = await sqliteKind.create();
  const app = composeEngine(
    parseConfig({ API_TOKEN: 't', BASE_URL: 'https://s.example' }, 'engine'),
    testStore.store,
    pino({ level: 'silent' }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return {
    app,
    port,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await testStore.dispose();
    },
  };
}
