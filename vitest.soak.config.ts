import { defineConfig } from 'vitest/config';

/** `npm run soak`: the long mixed-traffic run with dependency cuts, outside `npm test`. */
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    testTimeout: 60 * 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
