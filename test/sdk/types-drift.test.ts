import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedTypes, fetchDocument, renderTypes } from '../../packages/sdk/scripts/generate.mjs';
import { type Serve, startServe } from '../../packages/sdk/scripts/serve.mjs';

/**
 * The SDK's committed types are what `npm run sdk:generate` makes from the /openapi.json of a real
 * `linkhop serve` today, and every /v1 operation has an SDK method. A route change fails here until the
 * types are regenerated (and, for a new /v1 operation, a method is added to packages/sdk/src/resources).
 */

interface Document {
  paths: Record<string, Record<string, { operationId?: string }>>;
}

let serve: Serve;
let document: Document;

beforeAll(async () => {
  serve = await startServe();
  document = (await fetchDocument(serve.url)) as Document;
});
afterAll(() => serve.stop());

describe('the SDK stays in step with the service', () => {
  it('packages/sdk/src/openapi.ts is what npm run sdk:generate makes now', async () => {
    const fresh = await renderTypes(document);
    // toBe on the whole file would print 10 000 lines; the first differing line says what drifted.
    const committed = committedTypes().split('\n');
    const lines = fresh.split('\n');
    const first = lines.findIndex((line, i) => line !== committed[i]);
    const where = first === -1 ? 'none' : `line ${first + 1}: ${lines[first]?.trim()}`;
    expect(
      {
        lines: committed.length,
        firstDifference: first === -1 && lines.length === committed.length ? 'none' : where,
      },
      'run `npm run sdk:generate` and commit packages/sdk/src/openapi.ts',
    ).toEqual({ lines: lines.length, firstDifference: 'none' });
  });

  it('every /v1 operation has an SDK method', () => {
    const dir = join(import.meta.dirname, '../../packages/sdk/src');
    const sources = ['client.ts', ...readdirSync(join(dir, 'resources')).map((file) => `resources/${file}`)]
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    const called = new Set(
      [...sources.matchAll(/\.(GET|POST|PUT|PATCH|DELETE)\('(\/v1[^']*)'/g)].map(
        ([, method, path]) => `${method} ${path}`,
      ),
    );
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter((operation) => !called.has(operation))).toEqual([]);
  });
});
