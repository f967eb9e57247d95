import { readFileSync } from 'node:fs';

/**
 * Node's flags for our servers, read from `npm start` so that the benches run them as users do (none
 * today: the last one, --no-memory-reducer, went when src/keep-tick-maps.ts fixed what it worked around).
 */
export const SERVER_FLAGS = (() => {
  // BENCH_SERVER_FLAGS="--flag ..." measures other flags beside the same run's baseline (a before/after).
  if (process.env.BENCH_SERVER_FLAGS !== undefined)
    return process.env.BENCH_SERVER_FLAGS.split(/\s+/).filter(Boolean);
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const words = scripts.start.split(/\s+/);
  return words.slice(1, words.indexOf('dist/cli/main.js'));
})();
