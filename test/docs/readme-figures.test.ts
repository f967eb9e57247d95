import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README's measurements are quoted from docs/performance.md, never made up there (issue #32, item 1):
 * every number in the README's Measurements table appears in docs/performance.md. When a figure there
 * changes, this says which README row still quotes the old one.
 */

const ROOT = join(import.meta.dirname, '../..');

function measurementRows(readme: string): string[] {
  const section = readme.split(/^## Measurements$/m)[1]?.split(/^## /m)[0] ?? '';
  return section.split('\n').filter((line) => line.startsWith('|') && !/^\|\s*(What|-)/.test(line));
}

describe('the README measurements table', () => {
  it('has rows and links docs/performance.md', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(measurementRows(readme).length).toBeGreaterThanOrEqual(4);
    expect(readme.split(/^## Measurements$/m)[1]).toContain('(docs/performance.md)');
  });

  it('quotes only figures that docs/performance.md states', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const performance = readFileSync(join(ROOT, 'docs/performance.md'), 'utf8');
    const missing: string[] = [];
    for (const row of measurementRows(readme)) {
      const figures = row.split('|')[2] ?? '';
      // Numbers with a decimal point or a thousands comma: the measured figures, not "10M" or "two".
      for (const figure of figures.match(/\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+/g) ?? []) {
        if (!performance.includes(figure)) missing.push(`${figure} (${row.split('|')[1]?.trim()})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
