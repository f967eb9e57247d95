import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeEngine } from '../../src/compose/engine.js';
import { parseEngineConfig } from '../../src/engine/config.js';
import type { EngineStore } from '../../src/engine/store.js';
import { engineStoreOn, type ServedEngine, serveEngine } from '../helpers/engine.js';
import { IN_APP_FIXTURES } from '../helpers/in-app-user-agents.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

const TOKEN = 'escape-test-token';
const tiktokIos = IN_APP_FIXTURES.find((f) => f.inApp === 'tiktok' && f.os === 'ios')?.ua ?? '';

function matrixFile(cells: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'engine-matrix-')), 'matrix.json');
  writeFileSync(file, JSON.stringify(cells));
  return file;
}

// Instagram on Android, for YouTube links only: instructions instead of the intent.
const OVERRIDE = [
  {
    inApp: 'instagram',
    os: 'android',
    platform: 'youtube',
    strategies: ['instructions'],
    attempt: 'tap',
    fallbackDelayMs: 2000,
    hint: 'browser-menu',
    source: 'test/engine/engine-escape.test.ts',
    confirmed: '2026-11-01',
  },
];

describe('ESCAPE_MATRIX_FILE on the engine', () => {
  it('stops the start with the row and field of a bad cell', async () => {
    const file = matrixFile([{ ...OVERRIDE[0], strategies: ['teleport'] }]);
    const config = parseEngineConfig({ API_TOKEN: TOKEN, ESCAPE_MATRIX_FILE: file });
    expect(config.escapeMatrixFile).toBe(file);
    await expect(composeEngine(config, {} as never, pino({ level: 'silent' }))).rejects.toThrow(
      /ESCAPE_MATRIX_FILE is invalid \(1 problem\(s\)\):\n- cells\[0\] \(instagram android youtube\)\.strategies\[0\]: must be one of/,
    );
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`engine escape pages on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: EngineStore;
    let app: ServedEngine;
    const long =
      `https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=${'PLx0sYbCqOb8TBPRdmBHs5I'.repeat(300)}`.slice(
        0,
        4096,
      );

    beforeAll(async () => {
      testStore = await kind.create();
      const env = {
        API_TOKEN: TOKEN,
        BASE_URL: 'https://go.example.com',
        ESCAPE_MATRIX_FILE: matrixFile(OVERRIDE),
      };
      store = engineStoreOn(testStore);
      app = await serveEngine(await composeEngine(parseEngineConfig(env), store, pino({ level: 'silent' })));
      for (const [slug, url] of Object.entries({ yt: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', long })) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/links',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          payload: { url, slug },
        });
        expect(response.statusCode).toBe(201);
      }
    });
    afterAll(async () => {
      await app.close();
      await store.close();
      await testStore.dispose();
    });

    const visit = (url: string, userAgent: string) =>
      app.inject({ method: 'GET', url, headers: { 'user-agent': userAgent } });

    it("applies the operator's cell: Instagram Android gets instructions for YouTube", async () => {
      const page = await visit('/yt', UA.instagramAndroid);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('id="lh-open"');
      expect(page.body).toContain('tap ⋯ at the top right, then “Open in browser”');
      // The built-in cell still rules other in-app browsers.
      expect((await visit('/yt', UA.androidChrome)).body).toContain(
        'href="intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;',
      );
    });

    it('bounces iOS TikTok to Safari on the link itself, marked esc=1', async () => {
      const page = await visit('/yt', tiktokIos);
      expect(page.body).toContain('id="lh-open" class="b" href="x-safari-https://go.example.com/yt?esc=1"');
    });

    it('keeps a page for the longest destination under 10 KB, the web link through ?web=1', async () => {
      const page = await visit('/long', UA.iphoneSafari);
      expect(Buffer.byteLength(page.body)).toBeLessThan(10 * 1024);
      expect(page.body).toContain('id="lh-web" class="w" href="https://go.example.com/long?web=1"');
      const web = await visit('/long?web=1', UA.iphoneSafari);
      expect(web.statusCode).toBe(301);
      expect(web.headers.location).toBe(long);
    });
  });
}
