import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStore, type Store } from '../../src/store/database.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';

/** Shared set-up of the webhook suites: a migrated store, organizations, and a real HTTP receiver. */

export const MASTER_SECRET = 'webhook-test-master-secret-0123456789';

/** A fresh store with every migration applied, 006 included. */
export async function webhookStore(kind: StoreKind): Promise<TestStore> {
  return kind.create();
}

/** A second connection (pool) to the same database: what another instance of the service would hold. */
export function secondStore(testStore: TestStore): Store {
  return testStore.schema
    ? openStore(testStore.url, { schema: testStore.schema, maxConnections: 4 })
    : openStore(testStore.url);
}

export interface Receipt {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

export interface Receiver {
  url: string;
  receipts: Receipt[];
  /** Status answered per path; a path absent here answers 200, `'hang'` never answers. */
  behaviour: Map<string, number | 'hang'>;
  /** Delay before answering, so concurrent workers overlap. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receipts: Receipt[] = [];
  const behaviour = new Map<string, number | 'hang'>();
  const receiver = { receipts, behaviour, delayMs: 0 } as Receiver;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      receipts.push({ path, headers: request.headers, raw: Buffer.concat(chunks) });
      const mode = behaviour.get(path) ?? 200;
      if (mode === 'hang') return;
      setTimeout(
        () => response.writeHead(mode, { 'content-type': 'text/plain' }).end('ok'),
        receiver.delayMs,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
