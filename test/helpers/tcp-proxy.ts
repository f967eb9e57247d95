import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback, for fault tests: point a client (pg, ioredis, a spawned server) at `url(...)`
 * instead of the real service, then `cut(ms)` drops every open connection at once and refuses new ones
 * for `ms` (each new connection is reset as soon as it is accepted, as when a database restarts or a
 * network path fails), after which connections flow again.
 */
export interface TcpProxy {
  /** The proxy's local port. */
  readonly port: number;
  /** Connections open now (client side). */
  readonly open: number;
  /** Drops every connection and refuses new ones for `ms` (until `restore()` when `ms` is omitted). */
  cut(ms?: number): Promise<void>;
  /** Accepts connections again at once. */
  restore(): void;
  /** True while connections are being refused. */
  readonly down: boolean;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let down = false;
  let timer: NodeJS.Timeout | null = null;

  const server: Server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');

  const restore = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    down = false;
  };

  return {
    port: address.port,
    get open() {
      return pairs.size;
    },
    get down() {
      return down;
    },
    async cut(ms?: number) {
      down = true;
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
      if (ms !== undefined) {
        if (timer) clearTimeout(timer);
        timer = setTimeout(restore, ms);
        timer.unref();
      }
    },
    restore,
    async close() {
      restore();
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL whose host and port are replaced by the proxy's (postgres://..., redis://...). */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
