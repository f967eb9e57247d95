import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy, throughProxy } from './tcp-proxy.js';

/** The fault proxy itself: it forwards, cuts every connection at once, refuses while down, and recovers. */
describe('the TCP fault proxy', () => {
  let echo: Server;
  let proxy: TcpProxy;

  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const port = (echo.address() as { port: number }).port;
    proxy = await startTcpProxy({ host: '127.0.0.1', port });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => echo.close(resolve));
  });

  const roundTrip = () =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(proxy.port, '127.0.0.1');
      socket.once('error', reject);
      socket.once('data', (data) => {
        resolve(String(data));
        socket.end();
      });
      socket.write('ping');
    });

  it('forwards, cuts open connections, refuses while down and flows again after the cut', async () => {
    expect(await roundTrip()).toBe('ping');
    const held = connect(proxy.port, '127.0.0.1');
    await new Promise((resolve) => held.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(proxy.open).toBe(1);
    const closed = new Promise((resolve) => held.once('close', resolve));
    held.on('error', () => undefined);
    await proxy.cut(150);
    await closed;
    expect(proxy.down).toBe(true);
    await expect(roundTrip()).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(proxy.down).toBe(false);
    expect(await roundTrip()).toBe('ping');
  });

  it('rewrites a service URL to go through it', () => {
    expect(throughProxy('postgres://postgres@127.0.0.1:5432/test', proxy)).toBe(
      `postgres://postgres@127.0.0.1:${proxy.port}/test`,
    );
  });
});
