import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * chdb (a current ClickHouse, 26.x, in-process; 543 MB) for the dialect check, never part of the default
 * `npm install`: it lives in its own cache folder, `LINKHOP_CHDB_DIR` or ~/.cache/linkhop-chdb, filled
 * by `npm install --prefix <dir> chdb@3.4.0` when `LINKHOP_CHDB=1` asks for it (.ci/run sets it). With
 * neither the variable nor a filled folder, the suites that need it are skipped with a reason.
 */

export const CHDB_VERSION = '3.4.0';
const dir = process.env.LINKHOP_CHDB_DIR ?? join(homedir(), '.cache', 'linkhop-chdb');
const entry = join(dir, 'node_modules', 'chdb', 'package.json');

export interface ChdbSession {
  query(statement: string, format?: string): string;
  cleanup?(): void;
}
interface ChdbModule {
  Session: new (path?: string) => ChdbSession;
}

function installed(): boolean {
  if (existsSync(entry)) return true;
  if (process.env.LINKHOP_CHDB !== '1') return false;
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', dir, `chdb@${CHDB_VERSION}`, '--no-audit', '--no-fund', '--no-save'],
    { stdio: 'inherit' },
  );
  console.warn(
    `[linkhop tests] chdb ${CHDB_VERSION} installed in ${Math.round(performance.now() - started)} ms`,
  );
  return npm.status === 0 && existsSync(entry);
}

const available = installed();

export const chdbKind = {
  skipReason: available
    ? null
    : `chdb is not in ${dir} (LINKHOP_CHDB=1 installs it there, 543 MB): the ClickHouse dialect check is skipped`,
};
if (chdbKind.skipReason && process.env.LINKHOP_CHDB === '1') throw new Error(chdbKind.skipReason);

/** The chdb module from the cache folder. */
export function loadChdb(): ChdbModule {
  return createRequire(entry)('chdb') as ChdbModule;
}
