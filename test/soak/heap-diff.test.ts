import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffHeaps, formatHeapDiff, summarizeSnapshot, summarizeSnapshotFile } from './heap-diff.js';

// Two real snapshots, 10,000 instances of a named class allocated between them. Taken in a worker thread:
// its heap is a few MB (the test runner's is tens), so both snapshots take well under a second.
const SNAPSHOTS = `
const { parentPort, workerData } = require('node:worker_threads');
const v8 = require('node:v8');
const path = require('node:path');
class HeapDiffProbe { constructor(i) { this.i = i; } }
const kept = [];
const before = v8.writeHeapSnapshot(path.join(workerData, 'before.heapsnapshot'));
for (let i = 0; i < 10000; i++) kept.push(new HeapDiffProbe(i));
const after = v8.writeHeapSnapshot(path.join(workerData, 'after.heapsnapshot'));
parentPort.postMessage({ before, after, kept: kept.length });
`;

function takeSnapshots(dir: string): Promise<{ before: string; after: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SNAPSHOTS, { eval: true, workerData: dir });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe('heap diff by object type', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-heap-diff-'));
  let before = '';
  let after = '';
  beforeAll(async () => {
    ({ before, after } = await takeSnapshots(dir));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the class allocated between two snapshots, +10,000', () => {
    const diff = diffHeaps(summarizeSnapshotFile(before), summarizeSnapshotFile(after));
    const probe = diff.growth.find((entry) => entry.type === 'HeapDiffProbe');
    expect(probe).toMatchObject({ countDelta: 10_000, percent: null });
    expect(probe?.bytesDelta).toBeGreaterThanOrEqual(10_000 * 12);
    // The class is the largest growth but for the array that holds the instances.
    expect(diff.growth.slice(0, 3).map((entry) => entry.type)).toContain('HeapDiffProbe');
    expect(diff.after.bytes).toBeGreaterThan(diff.before.bytes);
    const lines = formatHeapDiff(diff, 15);
    expect(lines[0]).toMatch(/^heap [\d.]+ -> [\d.]+ MB \(\+[\d.]+ %\)/);
    expect(lines.some((line) => /HeapDiffProbe\s+\+10000 objects\s+\+\d+ bytes {2}new/.test(line))).toBe(
      true,
    );
  });

  it('refuses a snapshot still being written', () => {
    const whole = readFileSync(after);
    expect(() => summarizeSnapshot(whole.subarray(0, Math.floor(whole.length / 2)))).toThrow(
      /not a complete heap snapshot/,
    );
  });
});
