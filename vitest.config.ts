import { defineConfig } from 'vitest/config';
import { detectLocalServices } from './test/local-services.js';

export default defineConfig(async () => {
  await detectLocalServices();
  return {
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 20_000,
      // Browser tests poll the page (expect.poll) while it fetches and re-renders; CI machines are slow.
      expect: { poll: { timeout: 10_000, interval: 50 } },
      hookTimeout: 30_000,
      // Two cores here and in CI: keep the worker count small so store suites do not starve each other.
      maxWorkers: 2,
      reporters: ['default', './test/summary-reporter.ts'],
    },
  };
});
