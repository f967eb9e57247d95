import type { BlockCursor } from './backfill-source.js';
import type { ClickhouseClient } from './client.js';

/**
 * The backfill's resumable checkpoint, rows of `backfill_checkpoint` (backfill-tables.ts says why it is
 * in ClickHouse). A run reads them all once (a few per organization and month), then appends:
 * - `raw started` before a chunk's insert, with the chunk's exact range of blocks and its batch id;
 *   `raw done` after. A run that finds a chunk started and not done writes that same range again under
 *   the same id, and the ledger (write.ts) skips whatever of it was written: counted once.
 * - `rollups done` when an organization's month is copied (raw clicks, then the rollups they do not
 *   rebuild); `month done` when every organization's month and the month's outcomes are.
 * One backfill runs at a time: two would each number their rows from the same last `seq`.
 */

export interface CheckpointRow {
  seq: number;
  month: number;
  org_id: string;
  step: 'raw' | 'rollups' | 'outcomes' | 'month';
  state: 'started' | 'done';
  from_at: number;
  from_id: number;
  to_at: number;
  to_id: number;
  batch_id: string;
  rows: number;
}

export interface RawChunk {
  from: BlockCursor;
  to: BlockCursor;
  batchId: string;
  done: boolean;
}

const keyOf = (month: number, orgId: string) => `${month}/${orgId}`;

export async function loadCheckpoint(client: ClickhouseClient, database: string) {
  const loaded = await client.rows<Record<keyof CheckpointRow, string>>(
    `SELECT seq, month, org_id, step, state, from_at, from_id, to_at, to_id, batch_id, rows
      FROM ${database}.backfill_checkpoint ORDER BY seq`,
  );
  const months = new Set<number>();
  const orgs = new Set<string>();
  const lastRaw = new Map<string, RawChunk>();
  let seq = 0;
  const pending: object[] = [];
  for (const text of loaded) {
    const row = { ...text, seq: Number(text.seq), month: Number(text.month) };
    seq = Math.max(seq, row.seq);
    if (row.step === 'month' && row.state === 'done') months.add(row.month);
    if (row.step === 'rollups' && row.state === 'done') orgs.add(keyOf(row.month, row.org_id));
    if (row.step === 'raw')
      lastRaw.set(keyOf(row.month, row.org_id), {
        from: { at: Number(row.from_at), id: Number(row.from_id) },
        to: { at: Number(row.to_at), id: Number(row.to_id) },
        batchId: row.batch_id,
        done: row.state === 'done',
      });
  }

  return {
    /** Rows written so far (a run that finds none starts from the beginning). */
    rows: loaded.length,
    monthDone: (month: number) => months.has(month),
    orgDone: (month: number, orgId: string) => orgs.has(keyOf(month, orgId)),
    lastRaw: (month: number, orgId: string) => lastRaw.get(keyOf(month, orgId)) ?? null,

    /**
     * Notes a step. A chunk's `started` row is written at once, with whatever `done` rows wait: it must be
     * stored before the chunk's insert. Other rows wait for it or for `flush` (a month's end): one INSERT
     * per chunk, not three. A `done` lost with a crash costs a repeat the ledger makes harmless.
     */
    async record(row: Omit<CheckpointRow, 'seq'>): Promise<void> {
      seq += 1;
      // When, for a person reading the table (in the server's timezone; nothing reads it back).
      pending.push({ ...row, seq, at: new Date().toISOString().slice(0, 19).replace('T', ' ') });
      if (row.state === 'started') await this.flush();
    },

    async flush(): Promise<void> {
      if (pending.length === 0) return;
      await client.insert(`${database}.backfill_checkpoint`, pending);
      pending.length = 0;
    },
  };
}

export type Checkpoint = Awaited<ReturnType<typeof loadCheckpoint>>;

/** A checkpoint row's blank fields, for the steps that have no range. */
export const noRange = { from_at: 0, from_id: 0, to_at: 0, to_id: 0, batch_id: '', rows: 0 };
