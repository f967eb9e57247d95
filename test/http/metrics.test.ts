import { describe, expect, it } from 'vitest';
import { checkHealth } from '../../src/http/health.js';
import { createMetrics, type MetricsProbes } from '../../src/http/metrics.js';

const probes = (overrides: Partial<MetricsProbes> = {}): MetricsProbes => ({
  clicks: () => ({ pending: 12, dropped: 0, spilled: 3, spillBytes: 456 }),
  dbUp: () => true,
  outboxDepth: async () => 7,
  ...overrides,
});

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('Prometheus metrics', () => {
  it('counts requests by route and status, cumulatively', async () => {
    const metrics = createMetrics(probes());
    metrics.countRequest('/:slug', 302);
    metrics.countRequest('/:slug', 302);
    metrics.countRequest('/v1/links', 503);
    const first = await metrics.render();
    expect(sample(first, 'linkhop_http_requests_total{route="/:slug",status="302"}')).toBe(2);
    expect(sample(first, 'linkhop_http_requests_total{route="/v1/links",status="503"}')).toBe(1);
    metrics.countRequest('/:slug', 302);
    // A counter never goes back: a second scrape shows the running total, not the increment.
    expect(sample(await metrics.render(), 'linkhop_http_requests_total{route="/:slug",status="302"}')).toBe(
      3,
    );
  });

  it('keeps a cumulative redirect latency histogram', async () => {
    const metrics = createMetrics(probes());
    for (const seconds of [0.00005, 0.0003, 0.0003, 0.02, 5]) metrics.observeRedirect(seconds);
    const text = await metrics.render();
    expect(text).toContain('# TYPE linkhop_redirect_duration_seconds histogram');
    expect(sample(text, 'linkhop_redirect_duration_seconds_bucket{le="0.0001"}')).toBe(1);
    expect(sample(text, 'linkhop_redirect_duration_seconds_bucket{le="0.0005"}')).toBe(3);
    expect(sample(text, 'linkhop_redirect_duration_seconds_bucket{le="0.025"}')).toBe(4);
    expect(sample(text, 'linkhop_redirect_duration_seconds_bucket{le="2.5"}')).toBe(4);
    expect(sample(text, 'linkhop_redirect_duration_seconds_bucket{le="+Inf"}')).toBe(5);
    expect(sample(text, 'linkhop_redirect_duration_seconds_count')).toBe(5);
    expect(sample(text, 'linkhop_redirect_duration_seconds_sum')).toBeCloseTo(5.02065, 6);
  });

  it('reads the click buffer, spill, database, Redis and outbox probes at scrape time', async () => {
    let up = true;
    const metrics = createMetrics(probes({ redisUp: () => up }));
    let text = await metrics.render();
    expect(sample(text, 'linkhop_click_buffer_depth')).toBe(12);
    expect(sample(text, 'linkhop_click_spill_clicks')).toBe(3);
    expect(sample(text, 'linkhop_click_spill_bytes')).toBe(456);
    expect(sample(text, 'linkhop_database_up')).toBe(1);
    expect(sample(text, 'linkhop_redis_up')).toBe(1);
    expect(sample(text, 'linkhop_webhook_outbox_depth')).toBe(7);
    expect(sample(text, 'linkhop_process_open_fds')).toBeGreaterThan(0);
    up = false;
    text = await metrics.render();
    expect(sample(text, 'linkhop_redis_up')).toBe(0);
  });

  it('answers a scrape while the database hangs, keeping the last outbox depth', async () => {
    let depth: () => Promise<number> = async () => 4;
    const metrics = createMetrics(probes({ outboxDepth: () => depth(), dbUp: () => false }));
    await metrics.render();
    depth = () => new Promise<number>(() => undefined);
    const text = await metrics.render();
    expect(sample(text, 'linkhop_webhook_outbox_depth')).toBe(4);
    expect(sample(text, 'linkhop_database_up')).toBe(0);
  });

  it("shows RSS once and each thread's heap, keeping the last numbers of a thread that is slow to answer", async () => {
    const writer = { heapUsed: 5e6, heapTotal: 8e6, external: 1e6, arrayBuffers: 2e5 };
    let threads: () => Promise<Record<string, typeof writer | undefined>> = async () => ({
      'click-writer': writer,
    });
    const metrics = createMetrics(probes({ threads: () => threads() }));
    let text = await metrics.render();
    expect(sample(text, 'linkhop_process_rss_bytes')).toBeGreaterThan(0);
    expect(text).toContain('Linux has no per-thread RSS');
    expect(sample(text, 'linkhop_thread_heap_used_bytes{thread="main"}')).toBeGreaterThan(0);
    expect(sample(text, 'linkhop_thread_heap_used_bytes{thread="click-writer"}')).toBe(5e6);
    expect(sample(text, 'linkhop_thread_heap_total_bytes{thread="click-writer"}')).toBe(8e6);
    expect(sample(text, 'linkhop_thread_external_bytes{thread="click-writer"}')).toBe(1e6);
    expect(sample(text, 'linkhop_thread_array_buffers_bytes{thread="click-writer"}')).toBe(2e5);
    // Hung: the scrape answers anyway, with the last numbers.
    threads = () => new Promise(() => undefined);
    text = await metrics.render();
    expect(sample(text, 'linkhop_thread_heap_used_bytes{thread="click-writer"}')).toBe(5e6);
    // Gone (not running, left down): it drops out rather than showing a dead thread's heap.
    threads = async () => ({ 'click-writer': undefined });
    text = await metrics.render();
    expect(text).not.toContain('thread="click-writer"');
    expect(sample(text, 'linkhop_thread_heap_used_bytes{thread="main"}')).toBeGreaterThan(0);
  });

  it('asks the threads once per scrape', async () => {
    let asked = 0;
    const metrics = createMetrics(
      probes({
        threads: async () => {
          asked += 1;
          return {};
        },
      }),
    );
    await metrics.render();
    await metrics.render();
    expect(asked).toBe(2);
  });

  it('reads the cache sizes at scrape time, bytes where given', async () => {
    let links = 3;
    const metrics = createMetrics(
      probes({
        caches: () => ({ links: { entries: links }, compiled_pages: { entries: 2, bytes: 9000 } }),
      }),
    );
    let text = await metrics.render();
    expect(sample(text, 'linkhop_cache_entries{cache="links"}')).toBe(3);
    expect(sample(text, 'linkhop_cache_entries{cache="compiled_pages"}')).toBe(2);
    expect(sample(text, 'linkhop_cache_bytes{cache="compiled_pages"}')).toBe(9000);
    expect(text).not.toContain('linkhop_cache_bytes{cache="links"}');
    links = 4;
    text = await metrics.render();
    expect(sample(text, 'linkhop_cache_entries{cache="links"}')).toBe(4);
  });

  it('leaves Redis out when it is not configured', async () => {
    expect(await createMetrics(probes()).render()).not.toContain('linkhop_redis_up');
  });
});

describe('health report', () => {
  const up = async () => undefined;
  const down = async () => {
    throw new Error('connection refused');
  };

  it('is the plain {ok: true} of decisions.md when everything answers', async () => {
    expect(await checkHealth({ ping: up })).toEqual({ status: 200, body: { ok: true } });
    const redis = { up: () => true, rateLimitMode: () => 'shared' as const };
    expect(await checkHealth({ ping: up, redis })).toEqual({ status: 200, body: { ok: true } });
  });

  it('is 503 naming the database when it is away', async () => {
    expect(await checkHealth({ ping: down })).toEqual({
      status: 503,
      body: { ok: false, status: 'degraded', db: 'down', redis: 'not_configured' },
    });
  });

  it('stays 200 but degraded, with the per-instance rate limit, while only Redis is away', async () => {
    const redis = { up: () => false, rateLimitMode: () => 'local' as const };
    expect(await checkHealth({ ping: up, redis })).toEqual({
      status: 200,
      body: { ok: false, status: 'degraded', db: 'up', redis: 'down', rateLimit: 'local' },
    });
  });
});
