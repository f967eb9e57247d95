import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCompatibilityDoc } from '../../src/core/escape/compat-doc.js';
import { BUILTIN_ESCAPE_MATRIX } from '../../src/core/escape/index.js';

describe('docs/compatibility.md', () => {
  it('is the one generated from the escape matrix (run npm run docs:compat after changing a cell)', () => {
    const committed = readFileSync(new URL('../../docs/compatibility.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderCompatibilityDoc(BUILTIN_ESCAPE_MATRIX));
  });

  it('has one row per in-app browser per OS, with its source and date', () => {
    const doc = renderCompatibilityDoc(BUILTIN_ESCAPE_MATRIX);
    for (const cell of BUILTIN_ESCAPE_MATRIX.rows) {
      expect(doc).toContain(`[source](${cell.source}) | ${cell.confirmed} |`);
    }
    expect(doc.match(/^\| TikTok \|/gm)).toHaveLength(2);
    expect(doc).toContain('| TikTok |  |  |  | 1 |  |  | tap | 2500 ms |');
  });
});
