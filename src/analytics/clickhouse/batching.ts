import type { AnalyticsStore } from '../repo.js';

/**
 * How the click writer batches for ClickHouse (ANALYTICS_URL), in place of the main database's defaults
 * (1,000 clicks a batch every 500 ms, two lanes on PostgreSQL). Every INSERT makes a part per month it
 * touches in `clicks` and one in each view's table (the rollups, the ledger), and ClickHouse refuses
 * inserts once a partition holds too many parts unmerged (300 by default): its guidance is about one
 * INSERT a second from each writer, of thousands of rows or more. So one lane, a batch a second, and up to
 * 100,000 clicks in it: a busy instance sends one large INSERT a second, an idle one none, and ten
 * instances stay near ten a second whatever their traffic.
 */
export const CLICKHOUSE_BATCHING = {
  flushIntervalMs: 1000,
  maxRows: 100_000,
  backlogRows: 100_000,
  maxBuffered: 400_000,
  parallelBatches: 1,
} as const;

/**
 * The click buffer's options for writing to ClickHouse through `store`: its writes and pruning, every
 * batch under an id (a lost answer of an insert it took must not count twice), and the batching above.
 */
export function clickhouseBufferOptions(store: Pick<AnalyticsStore, 'writeClicks' | 'pruneBatchIds'>) {
  return {
    write: store.writeClicks,
    prune: store.pruneBatchIds,
    idEveryBatch: true,
    ...CLICKHOUSE_BATCHING,
  };
}
