import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';

/**
 * Every error code a client can see is documented in docs/api.md, and every documented code exists: the
 * catalogue table against `ERROR_CATALOGUE` (code, status and default message), the table of codes thrown
 * outside it against the `new AppError('code'` calls in src/. A code added, renamed or reworded on one side
 * only fails here.
 */
const root = join(import.meta.dirname, '..', '..');
const api = readFileSync(join(root, 'docs/api.md'), 'utf8');

function section(from: string, to: string): string {
  const start = api.indexOf(from);
  const end = api.indexOf(to, start);
  expect(start, `docs/api.md has "${from}"`).toBeGreaterThan(-1);
  expect(end, `docs/api.md has "${to}" after it`).toBeGreaterThan(start);
  return api.slice(start, end);
}

const rows = (text: string) =>
  [...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map(([, code, status, rest]) => ({
    code: code as string,
    status: Number(status),
    rest: rest as string,
  }));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

it('the catalogue in docs/api.md is ERROR_CATALOGUE: every code, its status and its message, both ways', () => {
  const documented = rows(section('### The catalogue', '**Plan gates**'));
  expect(documented.length).toBeGreaterThan(30);
  const inCode = Object.entries(ERROR_CATALOGUE).map(([code, { status, message }]) => ({
    code,
    status,
    rest: message,
  }));
  const byCode = (a: { code: string }, b: { code: string }) => a.code.localeCompare(b.code);
  expect(documented.sort(byCode)).toEqual(inCode.sort(byCode));
});

it('the codes thrown outside the catalogue are the ones docs/api.md lists, both ways', () => {
  const documented = rows(section('**Codes thrown outside the catalogue**', '\n### ')).map((row) => row.code);
  const thrown = new Set<string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    for (const [, code] of readFileSync(file, 'utf8').matchAll(/new AppError\(\s*'([a-z_]+)'/g)) {
      if (!((code as string) in ERROR_CATALOGUE)) thrown.add(code as string);
    }
  }
  expect(thrown.size).toBeGreaterThan(5);
  expect([...new Set(documented)].sort()).toEqual([...thrown].sort());
});
