import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickSpill } from '../../../src/analytics/write/click-spill.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { clickInput } from '../setup.js';

/**
 * kill -9 of a click writer between ClickHouse taking a batch and the writer acknowledging it (issue #35,
 * item 3). A process of its own (kill-writer.mjs, on the built dist) replays a spilled segment, as an
 * instance does after an outage; ClickHouse answers the insert and the process is killed before it
 * removes the segment. The next writer replays the same segment under the same id: the ledger says it
 * was written, nothing is inserted again, and the segment goes. Each click is counted once.
 */
const SCRIPT = join(import.meta.dirname, 'kill-writer.mjs');
const BUILT = join(import.meta.dirname, '../../../dist/analytics/clickhouse/live.js');
const FEB = Date.UTC(2025, 1, 28, 12, 0);
const MAR = Date.UTC(2025, 2, 1, 12, 0);

describe.skipIf(clickhouseKind.skipReason !== null || !existsSync(BUILT))(
  'a ClickHouse writer killed between insert and acknowledgment',
  () => {
    let ch: TestClickhouse;
    const spillDir = mkdtempSync(join(tmpdir(), 'linkhop-ch-kill-'));

    beforeAll(async () => {
      ch = await startClickhouse();
    }, 60_000);
    afterAll(async () => {
      await ch?.stop();
      rmSync(spillDir, { recursive: true, force: true });
    });

    /** The writer process; resolves with its output once it exits (or is killed on `killOn`). */
    function runWriter(url: string, hold: boolean): Promise<{ output: string; signal: string | null }> {
      const child = spawn(process.execPath, [SCRIPT, url, spillDir], {
        env: { ...process.env, HOLD_AFTER_INSERT: hold ? '1' : '0' },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (hold && /^inserted /m.test(output)) child.kill('SIGKILL');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      return new Promise((resolve) => child.once('exit', (_code, signal) => resolve({ output, signal })));
    }

    it('counts the batch once after the replay', async () => {
      const database = `t_${Math.random().toString(16).slice(2, 14)}`;
      const url = ch.urlFor(database);
      const count = async (sql: string) => Number((await ch.query(sql)).trim());
      const raw = () => count(`SELECT count() FROM ${database}.clicks WHERE org_id = 'org-kill'`);
      const totals = () =>
        count(
          `SELECT sum(clicks) FROM ${database}.org_rollups WHERE org_id = 'org-kill' AND dimension = 'total'`,
        );
      // One segment over two months: two partitions, two inserts under one batch id.
      const clicks = Array.from({ length: 400 }, (_, i) =>
        clickInput({ orgId: 'org-kill', linkId: `link-${i % 7}`, at: (i % 2 === 0 ? FEB : MAR) + i }),
      );
      createClickSpill({ dir: spillDir }).writeBatch('s-kill-1', clicks);
      const segments = () => readdirSync(spillDir).filter((file) => file.endsWith('.seg'));
      expect(segments()).toHaveLength(1);

      const killed = await runWriter(url, true);
      expect(killed.signal).toBe('SIGKILL');
      expect(killed.output).toMatch(/^inserted s-kill-1 true$/m);
      // ClickHouse has the batch; the writer never acknowledged it: the segment is still there.
      expect(await raw()).toBe(400);
      expect(segments()).toHaveLength(1);

      const replayed = await runWriter(url, false);
      expect(replayed.signal).toBeNull();
      expect(replayed.output).toMatch(/^done /m);
      const stats = JSON.parse(/^done (.*)$/m.exec(replayed.output)?.[1] ?? '{}');
      // Replayed and found written before: not written again, and the segment is gone.
      expect(stats).toMatchObject({ written: 0, pending: 0, spilled: 0 });
      expect(segments()).toHaveLength(0);
      expect(await raw()).toBe(400);
      expect(await totals()).toBe(400);
    });
  },
);
