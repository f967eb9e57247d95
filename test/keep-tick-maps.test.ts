import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keptTickObject } from '../src/keep-tick-maps.js';

const KEEPER = pathToFileURL(join(import.meta.dirname, '../dist/keep-tick-maps.js')).href;

/**
 * The situation a server can fall into: nextTick's feedback is recorded, then a full collection runs
 * while no tick object is alive, then ticks go on. V8's own report of nextTick's feedback says whether
 * its object literal still defines its keys on known maps (MONOMORPHIC) or gave up (MEGAMORPHIC).
 */
function literalFeedbackAfterCollection(withKeeper: boolean): string[] {
  const script = `
    ${withKeeper ? `await import(${JSON.stringify(KEEPER)});` : ''}
    const ticks = (n) => new Promise((resolve) => {
      let left = n;
      const step = () => (--left === 0 ? resolve() : process.nextTick(step));
      process.nextTick(step);
    });
    await ticks(50);
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    gc();
    await ticks(50);
    %DebugPrint(process.nextTick);
  `;
  const run = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  return [...run.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1] ?? '');
}

describe('keeping tick-object maps', () => {
  it('keeps one tick object, with its async-id keys', () => {
    const kept = keptTickObject() as Record<string | symbol, unknown> | null;
    expect(kept).not.toBeNull();
    // Node 24 adds its async context frame as a third symbol.
    expect(Object.getOwnPropertySymbols(kept).map(String)).toEqual(
      expect.arrayContaining(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']),
    );
    expect(Object.keys(kept ?? {})).toEqual(['callback', 'args']);
  });

  it("without it, a full collection turns nextTick's object literal megamorphic", () => {
    // If a future V8 stops doing this, this test says so, and src/keep-tick-maps.ts can go.
    const states = literalFeedbackAfterCollection(false);
    expect(states.length).toBeGreaterThanOrEqual(4);
    expect(states).toContain('MEGAMORPHIC');
  });

  it('with it, every computed key of the literal stays monomorphic through a full collection', () => {
    const states = literalFeedbackAfterCollection(true);
    expect(states.length).toBeGreaterThanOrEqual(4);
    expect(new Set(states)).toEqual(new Set(['MONOMORPHIC']));
  });
});
