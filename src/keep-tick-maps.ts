import { createHook } from 'node:async_hooks';

/**
 * Keeps one `process.nextTick` object alive for the life of the process, so that V8 keeps the hidden
 * classes (maps) of tick objects. Imported first by every entry point (the `linkhop` command, the click
 * writer thread), before any other module runs.
 *
 * Why: Node builds each tick object with an object literal whose first keys are computed (its async-id
 * symbols). V8 records the map each of those keys is defined on, weakly. Tick objects live for
 * microseconds, so a full garbage collection that finds none alive frees their maps; the next tick object
 * gets new ones, and V8's feedback for those keys turns megamorphic for good. From then on every
 * `nextTick` defines its properties through the V8 runtime instead of optimized code. Node's HTTP server
 * calls `nextTick` about seven times per request, so a process that hit this served about a fifth fewer
 * redirects. Whether it did depended on when its first full collections ran: about one fresh server in
 * three (measured 2026-11-27, Node 20.20 and 24.21; docs/performance.md). One kept object holds its map,
 * and through the maps' back pointers every map before it.
 */
let kept: object | null = null;

const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'TickObject' && kept === null) kept = resource;
  },
});
hook.enable();
process.nextTick(() => {});
hook.disable();

/** The kept tick object (for the test that checks it is one). */
export function keptTickObject(): object | null {
  return kept;
}
