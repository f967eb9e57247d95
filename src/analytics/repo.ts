import type { Kysely } from 'kysely';
import type { Store } from '../store/database.js';
import type { AnalyticsDatabase } from './model.js';
import { createClickReads } from './read/click-reads.js';
import { createClickRepo } from './read/click-repo.js';
import { createRollupReads } from './read/rollup-reads.js';
import { createRollupRepo } from './read/rollup-repo.js';
import { createWriteRepo } from './write/repo.js';

export {
  DAY_MS,
  type DayRange,
  type ExportRow,
  OUTCOMES,
  type Outcome,
  type OutcomeRow,
  type Scope,
  SEP,
} from './model.js';

/**
 * The analytics store, both sides on one store: the writes (write/repo.ts) keep the rollups in step with
 * the raw rows in the same transaction; the reads answer from the rollups (read/rollup-reads.ts), and only
 * the clicks list and the export read raw clicks (read/click-reads.ts). The SQL is in the `*repo.ts` files
 * of write/ and read/.
 */
export function createAnalyticsRepo(store: Store) {
  const db = store.db as unknown as Kysely<AnalyticsDatabase>;
  const rollups = createRollupRepo(db);
  return {
    ...createRollupReads(rollups),
    ...createClickReads(createClickRepo(db, rollups.linkIds)),
    ...createWriteRepo(store),
  };
}

export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;

/**
 * The narrow interface the rest of the service sees (docs/architecture.md): scopes, windows and plain
 * rows in and out, nothing of SQL. Another engine (ClickHouse) would implement exactly these.
 */
export type AnalyticsStore = Pick<
  AnalyticsRepo,
  | 'writeClicks'
  | 'insertOutcome'
  | 'pruneBatchIds'
  | 'sums'
  | 'daily'
  | 'linkTotals'
  | 'perLink'
  | 'linkSums'
  | 'clicks'
  | 'exportPages'
>;
