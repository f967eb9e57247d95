import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseSettings } from '@clickhouse/client';
import { expect } from 'vitest';
import type { ClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { type ChdbSession, loadChdb } from '../../helpers/chdb.js';

/**
 * The dialect check of issue #35: statements the ClickHouse code sent to Debian's 18.16 are noted by a
 * capturing client, then replayed in order on chdb (ClickHouse 26.x in-process). Each must run there, and
 * each read must answer the same rows (as a multiset: statements without ORDER BY have no order).
 */

export interface Captured {
  kind: 'rows' | 'command' | 'insert';
  statement: string;
  settings: ClickHouseSettings | undefined;
  rows?: object[];
  answer?: unknown[];
}

/** A client that does what `inner` does and notes each statement, its settings and its answer. */
export function capturing(inner: ClickhouseClient, log: Captured[]): ClickhouseClient {
  return {
    async rows<T>(statement: string, settings?: ClickHouseSettings): Promise<T[]> {
      const answer = await inner.rows<T>(statement, settings);
      log.push({ kind: 'rows', statement, settings, answer });
      return answer;
    },
    async *stream<T>(statement: string, settings?: ClickHouseSettings): AsyncGenerator<T[]> {
      const answer: T[] = [];
      let whole = false;
      try {
        for await (const chunk of inner.stream<T>(statement, settings)) {
          answer.push(...chunk);
          yield chunk;
        }
        whole = true;
      } finally {
        // A stream its reader left early has no whole answer to compare: the statement still runs.
        log.push({ kind: 'rows', statement, settings, ...(whole ? { answer } : {}) });
      }
    },
    async command(statement: string, settings?: ClickHouseSettings): Promise<void> {
      await inner.command(statement, settings);
      log.push({ kind: 'command', statement, settings });
    },
    async insert(table: string, rows: readonly object[], settings?: ClickHouseSettings): Promise<void> {
      await inner.insert(table, rows, settings);
      if (rows.length > 0)
        log.push({
          kind: 'insert',
          statement: `INSERT INTO ${table} FORMAT JSONEachRow`,
          settings,
          rows: [...rows],
        });
    },
    close: () => inner.close(),
  };
}

/** A row with 64-bit integers as numbers, whichever way the server wrote them (18.16 quotes them). */
export const numbersAsNumbers = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && /^-?\d{1,19}$/.test(value) ? Number(value) : value;

/**
 * Replays `log` on a fresh chdb session: every statement must run, every read with a whole answer must
 * answer the same multiset of rows, each row compared as `normal` writes it. Answers what it replayed.
 */
export function replayOnChdb(
  log: readonly Captured[],
  normal: (row: unknown) => string = (row) => JSON.stringify(row, numbersAsNumbers),
) {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-chdb-'));
  const { Session } = loadChdb();
  const session: ChdbSession = new Session(dir);
  const multiset = (rows: readonly unknown[]) => rows.map(normal).sort();
  try {
    const version = session.query('SELECT version()', 'CSV');
    const kinds = { rows: 0, command: 0, insert: 0, compared: 0, nonEmpty: 0 };
    for (const step of log) {
      for (const [name, value] of Object.entries(step.settings ?? {}))
        session.query(`SET ${name} = ${/^\d+$/.test(String(value)) ? value : `'${value}'`}`);
      kinds[step.kind] += 1;
      const statement =
        step.kind === 'insert'
          ? `${step.statement}\n${(step.rows ?? []).map((row) => JSON.stringify(row)).join('\n')}`
          : step.statement;
      let text: string;
      try {
        text = session.query(statement, step.kind === 'rows' ? 'JSONEachRow' : 'CSV');
      } catch (error) {
        throw new Error(`chdb refused: ${step.statement.slice(0, 500)}\n${String(error)}`);
      }
      if (step.kind !== 'rows' || step.answer === undefined) continue;
      const rows = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown);
      expect(multiset(rows), step.statement).toEqual(multiset(step.answer));
      kinds.compared += 1;
      if (rows.length > 0) kinds.nonEmpty += 1;
    }
    return { version, ...kinds };
  } finally {
    session.cleanup?.();
    rmSync(dir, { recursive: true, force: true });
  }
}
