import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_ESCAPE_CELLS,
  BUILTIN_ESCAPE_MATRIX,
  createEscapeMatrix,
  EscapeMatrixFileError,
  escapeCellSchema,
  lookupCell,
  parseEscapeMatrixFile,
} from '../../src/core/escape/index.js';
import { compileEscapePage, ESCAPE_PAGE_BUDGET, planEscape } from '../../src/core/pages/index.js';
import { appTargetFor, createPlatformTable } from '../../src/core/platforms/index.js';
import { IN_APP_KEYS, type Visitor } from '../../src/core/visitor.js';
import { loadEscapeMatrix } from '../../src/escape-matrix.js';
import { createLinkBody } from '../../src/links/schema.js';

const row = {
  inApp: 'tiktok',
  os: 'ios',
  platform: 'youtube',
  strategies: ['scheme', 'x-safari'],
  attempt: 'tap',
  fallbackDelayMs: 1800,
  source: 'https://example.com/device-test',
  confirmed: '2026-10-30',
};

function problemsOf(json: unknown): string[] {
  try {
    parseEscapeMatrixFile(json);
  } catch (error) {
    expect(error).toBeInstanceOf(EscapeMatrixFileError);
    return (error as EscapeMatrixFileError).problems;
  }
  throw new Error('expected the file to be rejected');
}

describe('the built-in escape matrix', () => {
  it('passes the same schema as an operator file, every row', () => {
    for (const cell of BUILTIN_ESCAPE_CELLS) expect(escapeCellSchema.safeParse(cell).error).toBeUndefined();
    expect(parseEscapeMatrixFile(BUILTIN_ESCAPE_CELLS)).toHaveLength(BUILTIN_ESCAPE_CELLS.length);
  });

  it('has a row for the browser and for every in-app browser on both systems', () => {
    for (const os of ['ios', 'android'] as const) {
      for (const inApp of [null, ...IN_APP_KEYS]) {
        const found = BUILTIN_ESCAPE_CELLS.filter(
          (c) => c.inApp === inApp && c.os === os && c.platform === '*',
        );
        expect(found, `${inApp} ${os}`).toHaveLength(1);
      }
    }
    expect(IN_APP_KEYS.length - 1).toBeGreaterThanOrEqual(20); // other_webview is not an app
  });

  it('cites a public https source and a past date for every row', () => {
    for (const cell of BUILTIN_ESCAPE_CELLS) {
      expect(cell.source).toMatch(/^https:\/\/[a-z0-9.-]+\//);
      expect(Date.parse(cell.confirmed)).toBeLessThanOrEqual(Date.parse('2026-12-31'));
    }
  });

  it('puts Threads iOS with the Meta webviews (its UA is WKWebView, not SFSafariViewController)', () => {
    const threads = lookupCell('threads', 'ios', 'youtube');
    expect(threads.strategies).toEqual(lookupCell('instagram', 'ios', 'youtube').strategies);
    expect(threads.source).toBe('https://github.com/ua-parser/uap-core/issues/651');
  });
});

describe('lookupCell', () => {
  const matrix = createEscapeMatrix([{ ...row, inApp: 'tiktok', os: 'ios', platform: 'youtube' } as never]);

  it('takes the platform row, then the * row, then the unnamed-webview row', () => {
    expect(lookupCell('tiktok', 'ios', 'youtube', matrix).fallbackDelayMs).toBe(1800);
    expect(lookupCell('tiktok', 'ios', 'spotify', matrix).strategies).toEqual(['x-safari']);
    const withoutTiktok = createEscapeMatrix();
    (withoutTiktok.byKey as Map<string, unknown>).delete('tiktok|ios|*');
    expect(lookupCell('tiktok', 'ios', 'spotify', withoutTiktok)).toBe(
      lookupCell('other_webview', 'ios', 'spotify', withoutTiktok),
    );
    expect(lookupCell(null, 'android', 'youtube').strategies).toEqual(['intent']);
  });

  it('merges overrides by cell: a built-in row replaced in place, a new one added', () => {
    const replaced = createEscapeMatrix([{ ...row, platform: '*' } as never]);
    expect(replaced.rows).toHaveLength(BUILTIN_ESCAPE_MATRIX.rows.length);
    expect(lookupCell('tiktok', 'ios', 'x', replaced).strategies).toEqual(['scheme', 'x-safari']);
    expect(matrix.rows).toHaveLength(BUILTIN_ESCAPE_MATRIX.rows.length + 1);
  });
});

describe('parseEscapeMatrixFile (ESCAPE_MATRIX_FILE)', () => {
  it('accepts an array or {cells: [...]}', () => {
    expect(parseEscapeMatrixFile([row])).toEqual([row]);
    expect(parseEscapeMatrixFile({ cells: [row] })).toEqual([row]);
    expect(
      parseEscapeMatrixFile([{ ...row, inApp: null, os: 'android', strategies: ['intent'] }]),
    ).toHaveLength(1);
  });

  it('names the row and the field of every problem', () => {
    expect(
      problemsOf([
        row,
        { ...row, inApp: 'myspace', fallbackDelayMs: 20, confirmed: 'yesterday' },
        { ...row, os: 'android', strategies: ['scheme', 'intent'] },
        { ...row, strategies: ['instructions'] },
        { ...row, extra: 1, source: '' },
      ]),
    ).toEqual([
      expect.stringMatching(/^cells\[1\] \(myspace ios youtube\)\.inApp: must be one of "instagram", /),
      'cells[1] (myspace ios youtube).fallbackDelayMs: must be at least 500 ms',
      'cells[1] (myspace ios youtube).confirmed: must be a date, YYYY-MM-DD',
      'cells[2] (tiktok android youtube).strategies[0]: "scheme" has no meaning on android',
      'cells[3] (tiktok ios youtube).hint: is required when the strategies include "instructions"',
      'cells[4] (tiktok ios youtube).source: must name a source (a URL or a test path)',
      'cells[4] (tiktok ios youtube): unknown field(s) "extra"',
    ]);
  });

  it('refuses two rows for the same cell and a file that is not a list', () => {
    expect(problemsOf([row, { ...row }])).toEqual([
      'cells[1] (tiktok ios youtube): the same cell as cells[0]',
    ]);
    expect(problemsOf({ rows: [] })).toEqual([
      'cells: must be an array of cells, or an object {"cells": [...]}',
    ]);
    expect(problemsOf([{ ...row, strategies: [] }])).toEqual([
      'cells[0] (tiktok ios youtube).strategies: must list at least one strategy',
    ]);
  });

  it('loadEscapeMatrix reads the file once at start and fails with a readable message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'escape-matrix-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ cells: [row] }));
    expect(lookupCell('tiktok', 'ios', 'youtube', loadEscapeMatrix(good)).strategies).toEqual([
      'scheme',
      'x-safari',
    ]);
    expect(loadEscapeMatrix(undefined).rows).toHaveLength(BUILTIN_ESCAPE_CELLS.length);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '[{');
    expect(() => loadEscapeMatrix(broken)).toThrow(
      /^ESCAPE_MATRIX_FILE .*broken\.json: cannot read it as JSON/,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ ...row, attempt: 'auto' }]));
    expect(() => loadEscapeMatrix(bad)).toThrow(
      'ESCAPE_MATRIX_FILE is invalid (1 problem(s)):\n- cells[0] (tiktok ios youtube).attempt: must be one of "script", "tap"',
    );
  });
});

describe('page size at the longest allowed destination, in every cell', () => {
  const table = createPlatformTable();
  // src/links/schema.ts allows destinations of up to 4,096 characters.
  const base = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=';
  const longest = `${base}${'PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG&a=b'.repeat(200)}`.slice(0, 4096);
  const visitorOf = (cell: { inApp: Visitor['inApp']; os: 'ios' | 'android' }): Visitor => ({
    os: cell.os,
    inApp: cell.inApp,
    mobile: true,
    bot: false,
    preview: false,
    prefetch: false,
  });

  it('is the longest destination the links schema accepts', () => {
    expect(longest).toHaveLength(4096);
    expect(createLinkBody.safeParse({ url: longest }).success).toBe(true);
    expect(createLinkBody.safeParse({ url: `${longest}x` }).success).toBe(false);
  });

  it.each(BUILTIN_ESCAPE_CELLS.map((c) => [`${c.inApp ?? 'browser'} ${c.os}`, c] as const))(
    '%s: under 10 KB, the hand-off whole',
    (_name, cell) => {
      const target = appTargetFor(table, longest, {
        selfUrl: 'https://lnk.example/abc',
        via: 'https://lnk.example/_fallback/abc',
      });
      if (target === null) throw new Error('youtube must be a platform');
      const plan = planEscape(target, visitorOf(cell));
      const render = compileEscapePage({
        target,
        plan,
        branded: true,
        tap: { reportUrl: '/api/public/tap' },
      });
      const html = render(
        'rAnd0mN0nce+/base64AAAAAAAAAAAAAAAAAAAAAAAAA==',
        `${'t'.repeat(180)}.${'s'.repeat(43)}`,
      );
      expect(Buffer.byteLength(html)).toBeLessThan(ESCAPE_PAGE_BUDGET);
      if (plan.primary !== null) {
        const href = /id="lh-open" class="b" href="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
        expect(href).toBe(plan.primary.href);
        if (plan.primary.kind !== 'x-safari') expect(href?.length).toBeGreaterThanOrEqual(4000);
      }
    },
  );

  it('keeps the destination in the web link when it fits', () => {
    const target = appTargetFor(table, `${base}short`, { via: 'https://lnk.example/_fallback/abc' });
    if (target === null) throw new Error('youtube must be a platform');
    const html = compileEscapePage({
      target,
      plan: planEscape(target, visitorOf({ inApp: null, os: 'ios' })),
    })('n0nce');
    expect(html).toContain(`id="lh-web" class="w" href="${base.replace(/&/g, '&amp;')}short"`);
    expect(target.android).toContain(`S.browser_fallback_url=${encodeURIComponent(`${base}short`)}`);
  });
});
