import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';
import { browserSkipReason, launchBrowser } from './harness.js';

/** The API docs page still renders under its Content-Security-Policy, with no violation reported. */
describe.skipIf(browserSkipReason !== null)('/docs under its CSP in Chromium', () => {
  let testStore: TestStore;
  let composed: Composed;
  let origin: string;
  beforeAll(async () => {
    testStore = await sqliteKind.create();
    composed = await composeHosted(
      parseConfig({ SESSION_SECRET: 'test-session-secret-0123456789abcdef' }, 'hosted'),
      testStore.store,
      pino({ level: 'silent' }),
    );
    origin = await composed.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await composed?.close();
    await testStore?.dispose();
  });

  it('shows the operations of the OpenAPI document', { timeout: 60_000 }, async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const response = await page.goto(`${origin}/docs`);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page
        .locator('.opblock-summary-path', { hasText: '/v1/links' })
        .first()
        .waitFor({ timeout: 15_000 });
      // swagger-ui renders only the operations near the viewport: scroll through and collect them all.
      const seen = new Set<string>();
      for (let step = 0; step < 400; step++) {
        for (const op of await page.locator('.opblock-summary').allInnerTexts())
          seen.add(op.replace(/\s+/g, ' '));
        const atEnd = await page.evaluate(() => {
          window.scrollBy(0, 600);
          return window.scrollY + window.innerHeight >= document.body.scrollHeight - 1;
        });
        if (atEnd) break;
        await page.waitForTimeout(20);
      }
      expect(seen.size).toBeGreaterThan(100);
      expect([...seen].some((op) => op.includes('/v1/audit-log'))).toBe(true);
      expect(violations).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
