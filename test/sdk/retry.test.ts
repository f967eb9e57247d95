import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkhopError } from '../../packages/sdk/src/index.js';
import { startFaultProxy } from './fault-proxy.js';
import { recordedSleeps, type SdkServer, startSdkServer } from './setup.js';

let server: SdkServer;

beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(() => server.serve.stop());

const YOUTUBE = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

describe('retries on 429 and 503', () => {
  it("the service's own 429: waits what Retry-After says, a bounded number of times, then throws with retryAfter", async () => {
    const { apiKey } = server.org();
    const limit = (await server.client(apiKey).me()).rateLimit.limit;
    // Spend the key's window (the call above was the first request of it).
    for (let i = 1; i < limit; i++) {
      const response = await fetch(`${server.serve.url}/v1/me`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(response.status).toBe(200);
    }
    const { sleeps, sleep } = recordedSleeps();
    const client = server.client(apiKey, { retry: { maxRetries: 2, maxDelayMs: 120_000, sleep } });
    const error = await client.me().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LinkhopError);
    const limited = error as LinkhopError;
    expect([limited.status, limited.error]).toEqual([429, 'rate_limited']);
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(sleeps).toHaveLength(2);
    // Each wait is the server's Retry-After in milliseconds: whole seconds within the 60 s window.
    for (const ms of sleeps) {
      expect(ms % 1000).toBe(0);
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(60_000);
    }
  });

  it('a Retry-After longer than maxDelayMs is not waited out: the error carries it at once', async () => {
    const proxy = await startFaultProxy(server.serve.url, [{ status: 429, retryAfter: '45' }]);
    try {
      const { sleeps, sleep } = recordedSleeps();
      const client = server.client(server.org().apiKey, {
        baseUrl: proxy.url,
        retry: { maxDelayMs: 10_000, sleep },
      });
      const error = (await client.me().catch((thrown: unknown) => thrown)) as LinkhopError;
      expect([error.status, error.retryAfter]).toEqual([429, 45]);
      expect(sleeps).toEqual([]);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('a POST refused with 503 then 429 is sent again whole, and creates the link once', async () => {
    const proxy = await startFaultProxy(server.serve.url, [
      { status: 503 },
      { status: 429, retryAfter: '2' },
    ]);
    try {
      const { sleeps, sleep } = recordedSleeps();
      const client = server.client(server.org().apiKey, {
        baseUrl: proxy.url,
        retry: { baseDelayMs: 250, sleep },
      });
      const link = await client.links.create({ url: YOUTUBE, slug: 'retried' });
      expect(link.slug).toBe('retried');
      // No Retry-After on the 503: the first back-off step; then the 429's two seconds.
      expect(sleeps).toEqual([250, 2000]);
      expect(proxy.seen.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
      const bodies = proxy.seen.map((request) => JSON.parse(request.body));
      expect(bodies).toEqual([0, 1, 2].map(() => ({ url: YOUTUBE, slug: 'retried' })));
      expect((await client.links.list().all()).map((item) => item.slug)).toEqual(['retried']);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after maxRetries 503s and throws the last one; other errors are never retried', async () => {
    const proxy = await startFaultProxy(server.serve.url, [
      { status: 503 },
      { status: 503 },
      { status: 503 },
    ]);
    try {
      const { sleeps, sleep } = recordedSleeps();
      const client = server.client(server.org().apiKey, {
        baseUrl: proxy.url,
        retry: { maxRetries: 2, sleep },
      });
      const error = (await client.me().catch((thrown: unknown) => thrown)) as LinkhopError;
      expect([error.status, error.error]).toEqual([503, 'unavailable']);
      expect(sleeps).toEqual([500, 1000]);
      const notFound = (await client.links.get('missing').catch((thrown: unknown) => thrown)) as LinkhopError;
      expect(notFound.status).toBe(404);
      expect(proxy.seen).toHaveLength(4);
    } finally {
      await proxy.close();
    }
  });
});
