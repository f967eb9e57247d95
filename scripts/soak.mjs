// `npm run soak -- --minutes 30 [--no-heap-snapshots] [vitest options]`: the soak's length and options as
// command-line flags. Vitest passes no unknown flags on to the test file, so they travel as the environment
// variables the soak reads (SOAK_MINUTES, SOAK_HEAP_SNAPSHOTS; set directly, they work as before).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Our flags out of argv; everything else goes to Vitest untouched. */
function parseArgs(argv) {
  const env = {};
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const inline = /^--minutes=(.*)$/.exec(arg);
    if (arg === '--minutes' || inline) {
      const value = inline ? inline[1] : argv[++i];
      if (!(Number(value) > 0)) throw new Error(`--minutes wants a positive number, got ${value}`);
      env.SOAK_MINUTES = String(Number(value));
    } else if (arg === '--no-heap-snapshots') env.SOAK_HEAP_SNAPSHOTS = '0';
    else rest.push(arg);
  }
  return { env, rest };
}

const { env, rest } = parseArgs(process.argv.slice(2));
const vitest = join(root, 'node_modules/vitest/vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', '--config', 'vitest.soak.config.ts', ...rest], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ...env },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
