import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Composed, composeHosted } from '../../src/app.js';
import { composeEngine } from '../../src/compose/engine.js';
import { type Config, parseConfig } from '../../src/config.js';
import { parseEngineConfig } from '../../src/engine/config.js';
import { createLogger } from '../../src/logger.js';
import { engineStoreOn, serveEngine } from '../helpers/engine.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';

/** Issue #32, item 5: one log line per request, and pretty lines for a person at a terminal. */

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('request logging', () => {
  let testStore: TestStore;
  beforeAll(async () => {
    testStore = await sqliteKind.create();
  });
  afterAll(async () => testStore?.dispose());

  it('the hosted service writes one line per request, when it answers: method, url, status, time', async () => {
    const { logger, lines } = capture('info');
    const config = parseConfig(
      { BASE_URL: 'https://lnk.example', SESSION_SECRET: 'request-log-secret-0123456789abcdef' },
      'hosted',
    );
    const composed: Composed = await composeHosted(config, testStore.store, logger);
    try {
      lines.length = 0;
      const health = await composed.app.inject({ method: 'GET', url: '/health?probe=1' });
      expect(health.statusCode).toBe(200);
      const refused = await composed.app.inject({ method: 'GET', url: '/v1/links' });
      expect(refused.statusCode).toBe(401);
      const requestLines = lines.filter((line) => 'responseTime' in line || line.msg === 'incoming request');
      expect(requestLines).toHaveLength(2);
      const [first, second] = requestLines as Record<string, unknown>[];
      expect(first).toMatchObject({ level: 30, method: 'GET', url: '/health?probe=1', statusCode: 200 });
      expect(first?.msg).toBe(`GET /health?probe=1 200 ${first?.responseTime} ms`);
      expect(typeof first?.responseTime).toBe('number');
      expect(second).toMatchObject({ method: 'GET', url: '/v1/links', statusCode: 401 });
      expect(lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toBe(
        false,
      );
    } finally {
      await composed.close();
    }
  });

  it('at warn and above, requests write nothing', async () => {
    const { logger, lines } = capture('warn');
    const config = parseConfig(
      { BASE_URL: 'https://lnk.example', SESSION_SECRET: 'request-log-secret-0123456789abcdef' },
      'hosted',
    );
    const composed = await composeHosted(config, testStore.store, logger);
    try {
      await composed.app.inject({ method: 'GET', url: '/health' });
      expect(lines.filter((line) => 'responseTime' in line)).toEqual([]);
    } finally {
      await composed.close();
    }
  });

  it('the engine writes the same one line', async () => {
    const { logger, lines } = capture('info');
    const config = parseEngineConfig({ API_TOKEN: 'engine-token-0123456789' });
    const store = engineStoreOn(testStore);
    const app = await serveEngine(await composeEngine(config, store, logger));
    try {
      lines.length = 0;
      await app.inject({ method: 'GET', url: '/health' });
      const requestLines = lines.filter((line) => 'responseTime' in line || line.msg === 'incoming request');
      expect(requestLines).toHaveLength(1);
      expect(requestLines[0]).toMatchObject({ method: 'GET', url: '/health', statusCode: 200 });
    } finally {
      await app.close();
      await store.close();
    }
  });
});

describe('the process logger', () => {
  const config = { logLevel: 'info', mode: 'hosted' } as Config;
  const sink = () => {
    let text = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    return { stream, text: () => text };
  };

  it('on a terminal: one readable line per entry, a request line without its repeated fields', () => {
    const out = sink();
    const logger = createLogger(config, { tty: true, destination: out.stream });
    logger.info(
      { method: 'GET', url: '/v1/links', statusCode: 200, responseTime: 3.1, reqId: 'req-1' },
      'GET /v1/links 200 3.1 ms',
    );
    logger.warn({ email: 'a@example.com', link: 'https://x.example/#/signup/confirm?token=t' }, 'a link');
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/v1\/links 200 3\.1 ms$/);
    expect(lines[1]).toMatch(
      /^\[\d\d:\d\d:\d\d\] WARN: a link \{"email":"a@example\.com","link":"https:\/\/x\.example/,
    );
    expect(out.text()).not.toContain('linkhop-hosted');
  });

  it('elsewhere: JSON lines naming the service', () => {
    const out = sink();
    const logger = createLogger(config, { tty: false, destination: out.stream });
    logger.info({ method: 'GET' }, 'hello');
    expect(JSON.parse(out.text())).toMatchObject({ level: 30, msg: 'hello', service: 'linkhop-hosted' });
  });

  it('pino-pretty is loaded only for a terminal', () => {
    const logger = join(import.meta.dirname, '../../dist/logger.js');
    const probe = (tty: boolean) =>
      spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module';
           const { createLogger } = await import(${JSON.stringify(logger)});
           createLogger({ logLevel: 'silent', mode: 'hosted' }, { tty: ${tty} });
           const cache = createRequire(import.meta.url).cache;
           process.stdout.write(String(Object.keys(cache).some((path) => path.includes('pino-pretty'))));`,
        ],
        { encoding: 'utf8' },
      ).stdout;
    expect(probe(false)).toBe('false');
    expect(probe(true)).toBe('true');
  });
});
