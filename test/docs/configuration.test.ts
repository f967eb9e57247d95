import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';

/**
 * docs/configuration.md's table lists every environment variable src/config.ts reads, and nothing else
 * (issue #32, item 3). The variables read are found by running the real parser on an environment that
 * notes each name asked of it, for both servers: a new variable in the schema is seen without anyone
 * updating a list here.
 */

const ROOT = join(import.meta.dirname, '../..');

function variablesRead(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get(_target, name) {
      if (typeof name === 'string' && /^[A-Z][A-Z0-9_]*$/.test(name)) read.add(name);
      return undefined;
    },
  });
  parseConfig(env, 'hosted');
  parseConfig(env, 'engine');
  return read;
}

function variablesDocumented(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const start = doc.indexOf('<!-- env-table:start -->');
  const end = doc.indexOf('<!-- env-table:end -->');
  expect(
    start,
    'docs/configuration.md marks its table with env-table:start and env-table:end',
  ).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const names: string[] = [];
  for (const row of doc.slice(start, end).split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(row)?.[1] ?? '';
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.push(match[1] as string);
  }
  return names;
}

describe('docs/configuration.md', () => {
  it('finds the variables the parser reads', () => {
    const read = variablesRead();
    expect(read.has('PORT')).toBe(true);
    expect(read.has('DATABASE_URL')).toBe(true);
    expect(read.size).toBeGreaterThan(20);
  });

  it('lists every variable src/config.ts reads, once, and none it does not', () => {
    const read = [...variablesRead()].sort();
    const documented = variablesDocumented();
    expect(documented.length, 'each variable is one row or one name in a row, not two').toBe(
      new Set(documented).size,
    );
    expect({ undocumented: read.filter((name) => !documented.includes(name)) }).toEqual({ undocumented: [] });
    expect({ notRead: documented.filter((name) => !read.includes(name)) }).toEqual({ notRead: [] });
  });

  it('the README points at it', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/configuration.md)');
  });
});
