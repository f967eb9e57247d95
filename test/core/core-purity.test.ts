import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The deep-link core is pure: no I/O, no framework, no database. Both servers import it; it imports
 * nothing of ours outside itself and only these packages.
 */
const CORE = resolve(import.meta.dirname, '../../src/core');
const ALLOWED_PACKAGES = new Set(['isbot', 'zod']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the deep-link core stays pure', () => {
  const files = sourceFiles(CORE);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files.map((file) => [relative(CORE, file), file]))(
    '%s imports only core modules, isbot and zod',
    (_name, file) => {
      const source = readFileSync(file, 'utf8');
      const specifiers = [...source.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map(
        (m) => m[1] ?? '',
      );
      for (const specifier of specifiers) {
        if (specifier.startsWith('.')) {
          const target = resolve(join(file, '..'), specifier);
          expect(target.startsWith(CORE), `${specifier} leaves src/core`).toBe(true);
        } else {
          expect(ALLOWED_PACKAGES.has(specifier), `${specifier} is not allowed in src/core`).toBe(true);
        }
      }
      expect(source).not.toMatch(/\bprocess\.env\b|\brequire\(/);
    },
  );
});
