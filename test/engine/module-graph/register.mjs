// Preloaded (`--import`) into the child of engine-module-graph.test.ts: ESM hooks for imports, and a
// wrapper around CommonJS resolution for require() calls, which those hooks do not see on Node 20.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const record = process.env.MODULE_GRAPH_RECORD;
register('./hooks.mjs', import.meta.url, { data: { record } });
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function recordingResolve(...args) {
  const resolved = resolveFilename.apply(this, args);
  appendFileSync(record, `${process.pid} ${resolved}\n`);
  return resolved;
};
