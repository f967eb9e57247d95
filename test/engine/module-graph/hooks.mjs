// Module hooks for engine-module-graph.test.ts, run in the loader thread: they record every module the
// child resolves (ESM imports) and let it run src/ as it is, each .ts transpiled as tsc would emit it.
import { appendFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

let record;

export function initialize(data) {
  record = data.record;
}

export async function resolve(specifier, context, next) {
  let resolved;
  try {
    resolved = await next(specifier, context);
  } catch (error) {
    // Our sources import each other as `./x.js`, which tsc emits beside `./x.ts`.
    if (!(context.parentURL?.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js')))
      throw error;
    resolved = await next(`${specifier.slice(0, -3)}.ts`, context);
  }
  // The process id first: the engine's migrations run in a child of its own, recorded in the same file.
  appendFileSync(record, `${process.pid} ${resolved.url}\n`);
  return resolved;
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = readFileSync(fileURLToPath(url), 'utf8');
  const output = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  return { format: 'module', source: output.outputText, shortCircuit: true };
}
