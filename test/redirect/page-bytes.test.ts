import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type CompiledDestination, compileDestination } from '../../src/core/destination.js';
import { BUILTIN_ESCAPE_CELLS, type EscapeStrategy } from '../../src/core/escape/index.js';
import {
  type ChooseStrategy,
  compileEscapePageParts,
  escapePageCsp,
  type PagePixel,
  planEscape,
  renderEscapePage,
} from '../../src/core/pages/index.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { decideVisit, resolveVisit } from '../../src/core/resolve.js';
import type { Visitor } from '../../src/core/visitor.js';
import { createEscapeChooser } from '../../src/redirect/escape-choice.js';
import { compilePageBytes } from '../../src/redirect/page-bytes.js';
import { createVisitResponder } from '../../src/redirect/respond.js';
import { linkEntryOf } from '../helpers/visits.js';

/**
 * Escape pages are compiled once per (destination, cell, strategy, options) into bytes with holes for the
 * nonce and the tap token (issue #18, "Speed"). Whatever the cell and whichever cached page a visit gets,
 * the bytes sent must be exactly the page a fresh render gives for that visit's plan, nonce and token.
 */

const table = createPlatformTable();
const DESTINATIONS = [
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=a"b<c>',
  'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC',
  'https://www.instagram.com/p/abc/',
  'https://example.org/landing?q=ünïcode',
].map((url) =>
  compileDestination(table, url, {
    selfUrl: 'https://lnk.example/abc',
    via: 'https://lnk.example/abc?web=1',
  }),
);
const PIXELS: PagePixel[] = [
  { type: 'meta', pixelId: '1234567890' },
  { type: 'gtm', pixelId: 'GTM-ABC123' },
];

const visitorOf = (cell: { inApp: string | null; os: string }): Visitor => ({
  os: cell.os as Visitor['os'],
  mobile: true,
  inApp: cell.inApp as Visitor['inApp'],
  bot: false,
  preview: false,
  prefetch: false,
});

/** A random nonce (base64 of 8 to 32 bytes) and a random tap token (1 to 4 base64url segments). */
function randomValues(): { nonce: string; token: string } {
  const nonce = randomBytes(8 + Math.floor(Math.random() * 25)).toString('base64');
  const segments = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () =>
    randomBytes(1 + Math.floor(Math.random() * 300)).toString('base64url'),
  );
  return { nonce, token: segments.join('.') };
}

/** Every visit the matrix can give: each cell's visitor × destination × strategy the destination allows. */
function everyVisit(): { visitor: Visitor; compiled: CompiledDestination; strategy: EscapeStrategy }[] {
  const visits: { visitor: Visitor; compiled: CompiledDestination; strategy: EscapeStrategy }[] = [];
  for (const cell of BUILTIN_ESCAPE_CELLS) {
    const visitor = visitorOf(cell);
    for (const compiled of DESTINATIONS) {
      let allowed: readonly EscapeStrategy[] = [];
      const decision = resolveVisit(compiled, visitor, {
        choose: (_cell, offered) => {
          allowed = offered;
          return undefined;
        },
      });
      if (decision.kind !== 'escape') continue;
      const strategies = allowed.length > 0 ? allowed : [decision.plan.strategy];
      for (const strategy of strategies) visits.push({ visitor, compiled, strategy });
    }
  }
  return visits;
}

describe('compilePageBytes', () => {
  it('fills to the bytes of a fresh render, for every cell, with and without tap, pixels and branding', () => {
    let checked = 0;
    for (const cell of BUILTIN_ESCAPE_CELLS) {
      for (const compiled of DESTINATIONS) {
        const target = compiled.target;
        if (target === null) continue;
        const plan = planEscape(target, visitorOf(cell));
        for (const options of [
          { branded: false, tap: null, pixels: [] },
          { branded: true, tap: { reportUrl: '/api/public/tap' }, pixels: [] },
          { branded: false, tap: { reportUrl: '/api/public/tap' }, pixels: PIXELS },
        ]) {
          const page = compilePageBytes(compileEscapePageParts({ target, plan, ...options }));
          // Several fills of one compiled page: nothing of one response may leak into the next.
          for (let i = 0; i < 3; i++) {
            const { nonce, token } = randomValues();
            const body = page.fill(nonce, token);
            const fresh = renderEscapePage({
              target,
              plan,
              nonce,
              ...options,
              tap: options.tap ? { ...options.tap, token } : null,
            });
            // A byte string: one character per byte of the page's UTF-8.
            expect(
              Buffer.from(body, 'latin1').equals(Buffer.from(fresh)),
              `${cell.inApp} ${cell.os} ${target.web}`,
            ).toBe(true);
            expect(body.length).toBe(Buffer.byteLength(fresh));
            expect(page.csp(nonce)).toBe(escapePageCsp(nonce, { pixels: options.pixels.length > 0 }));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(BUILTIN_ESCAPE_CELLS.length * 3);
  });

  it('refuses a nonce or a tap token that could break out of the page', () => {
    const compiled = DESTINATIONS[0] as CompiledDestination;
    if (compiled.target === null) throw new Error('youtube must be a platform');
    const plan = planEscape(compiled.target, visitorOf({ inApp: 'instagram', os: 'android' }));
    const page = compilePageBytes(
      compileEscapePageParts({ target: compiled.target, plan, tap: { reportUrl: '/api/public/tap' } }),
    );
    expect(() => page.fill('n0nce"><script>', 'abc.def')).toThrow(TypeError);
    expect(() => page.csp("x'; script-src *")).toThrow(TypeError);
    expect(() => page.fill('n0nce', 'abc"def')).toThrow(TypeError);
    expect(() => page.fill('n0nce')).toThrow(TypeError);
  });
});

describe('the visit responder serves compiled pages', () => {
  /** The hosted decision for a link whose one destination is `compiled`, as the performer takes it. */
  function decide(
    compiled: CompiledDestination,
    visitor: Visitor,
    chooseFor: (key: string) => ChooseStrategy,
  ) {
    const facts = {
      visitor,
      source: 'link' as const,
      country: null,
      nowMs: 0,
      random: Math.random,
      unlocked: false,
    };
    const decision = decideVisit(linkEntryOf(compiled), facts, 'visit', { chooseFor });
    if (decision.kind !== 'escape') throw new Error('expected a page');
    return decision;
  }

  it('sends, for every cell and strategy, the page a fresh render gives, cached pages included', () => {
    let pick: EscapeStrategy | undefined;
    const chooseFor = createEscapeChooser({ choose: () => pick });
    const respond = createVisitResponder({
      classify: () => {
        throw new Error('the visitor is given');
      },
      nonce: () => randomValues().nonce,
      redirectStatus: 302,
    });
    const look = { branded: true, pixels: [], tapReportUrl: '/api/public/tap' };
    const visits = everyVisit();
    expect(visits.length).toBeGreaterThan(BUILTIN_ESCAPE_CELLS.length);
    // Twice round, in a shuffled order: the first visit of a page compiles it, the others reuse it.
    const rounds = [...visits, ...visits].sort(() => Math.random() - 0.5);
    for (const { visitor, compiled, strategy } of rounds) {
      pick = strategy;
      const token = randomValues().token;
      const chosen = decide(compiled, visitor, chooseFor);
      const response = respond.fill(respond.escapePage(compiled, visitor, chosen, look), token);
      expect(response.status).toBe(200);
      const nonce = /'nonce-([^']+)'/.exec(response.headers['content-security-policy'] ?? '')?.[1] ?? '';
      const decision = resolveVisit(compiled, visitor, { choose: () => strategy });
      if (decision.kind !== 'escape') throw new Error('expected a page');
      expect(chosen.plan.strategy).toBe(decision.plan.strategy);
      const fresh = renderEscapePage({
        target: decision.target,
        plan: decision.plan,
        nonce,
        branded: true,
        tap: { reportUrl: '/api/public/tap', token },
      });
      const body = Buffer.from(response.body ?? '', 'latin1');
      expect(body.equals(Buffer.from(fresh)), `${visitor.inApp} ${visitor.os} ${strategy}`).toBe(true);
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(fresh)));
    }
  });

  it('gives two visits of one cell different nonces and tap tokens, each in its own page', () => {
    let tokens = 0;
    const visitor = visitorOf({ inApp: 'instagram', os: 'android' });
    const respond = createVisitResponder({
      classify: () => visitor,
      nonce: () => randomValues().nonce,
      redirectStatus: 302,
    });
    const compiled = DESTINATIONS[0] as CompiledDestination;
    const decision = resolveVisit(compiled, visitor);
    if (decision.kind !== 'escape') throw new Error('expected a page');
    const look = { branded: false, pixels: [], tapReportUrl: '/api/public/tap' };
    const visit = () =>
      respond.fill(respond.escapePage(compiled, visitor, decision, look), `tok${++tokens}.sig${tokens}`);
    const [first, second] = [visit(), visit()];
    const nonceOf = (response: typeof first) =>
      /'nonce-([^']+)'/.exec(response.headers['content-security-policy'] ?? '')?.[1];
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    const [a, b] = [String(first.body), String(second.body)];
    expect(a).toContain(`nonce="${nonceOf(first)}"`);
    expect(a).not.toContain(`nonce="${nonceOf(second)}"`);
    expect(a).toContain('content="tok1.sig1"');
    expect(b).toContain('content="tok2.sig2"');
    expect(b).not.toContain('tok1.sig1');
  });
});
