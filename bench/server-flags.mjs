import { readFileSync } from 'node:fs';

/**
 * Node's flags for our servers, read from `npm start` so that the benches run them as users do (today
 * --max-semi-space-size=4: docs/operations.md, "Memory").
 */
export const SERVER_FLAGS = (() => {
  // BENCH_SERVER_FLAGS="--flag ..." measures other flags beside the same run's baseline (a before/after).
  if (process.env.BENCH_SERVER_FLAGS !== undefined)
    return process.env.BENCH_SERVER_FLAGS.split(/\s+/).filter(Boolean);
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const words = scripts.start.split(/\s+/);
  return words.slice(1, words.indexOf('dist/cli/main.js'));
})();
