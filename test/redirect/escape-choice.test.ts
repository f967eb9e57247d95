import { describe, expect, it } from 'vitest';
import type { ClickInput } from '../../src/analytics/write/click-input.js';
import { createTapTokens } from '../../src/analytics/write/tap-tokens.js';
import { type CompiledDestination, compileDestination } from '../../src/core/destination.js';
import type { CellKey, EscapeStrategy } from '../../src/core/escape/index.js';
import type { ChooseStrategy, EscapePlan } from '../../src/core/pages/escape-plan.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { decideVisit, resolveVisit } from '../../src/core/resolve.js';
import { classifyVisitor } from '../../src/core/visitor.js';
import { createEscapeChooser } from '../../src/redirect/escape-choice.js';
import { createVisitResponder } from '../../src/redirect/respond.js';
import { factsOf, performVisit } from '../../src/redirect/visit.js';
import { UA_CORPUS } from '../core/ua-corpus.js';
import { linkEntryOf, performerDeps } from '../helpers/visits.js';

/**
 * The seam between the escape planner and the bandit in the hosted redirect: the strategy a plan used is
 * recorded with the tap, the planner's `choose` is asked per destination platform, and the page cache is
 * keyed by the strategy so one cell's visitors can get pages of different strategies.
 */

describe('createEscapeChooser', () => {
  it("asks the bandit per in-app browser × OS × the destination's platform, only where there is a choice", () => {
    const asked: [string, readonly EscapeStrategy[]][] = [];
    const chooserFor = createEscapeChooser({
      choose: (key, allowed) => {
        asked.push([key, allowed]);
        return allowed[1];
      },
    });
    const choose = chooserFor('spotify');
    expect(chooserFor('spotify')).toBe(choose);
    const cell: CellKey = { inApp: 'tiktok', os: 'ios', platform: '*' };
    expect(choose(cell, ['scheme'])).toBeUndefined();
    expect(choose(cell, ['x-safari', 'scheme'])).toBe('scheme');
    expect(choose({ inApp: null, os: 'android', platform: 'spotify' }, ['intent', 'none'])).toBe('none');
    expect(asked.map(([key]) => key)).toEqual(['tiktok|ios|spotify', '|android|spotify']);
  });
});

const table = createPlatformTable();
const DESTINATIONS = [
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC',
  'https://www.instagram.com/p/abc/',
].map((url) => compileDestination(table, url));
const SECRET = 'escape-choice-test-secret-0123456789';

/** The visits (user agent × destination) whose cell allows more than one strategy in the current planner. */
function cellsWithAChoice(): {
  ua: string;
  compiled: CompiledDestination;
  allowed: readonly EscapeStrategy[];
}[] {
  const found: { ua: string; compiled: CompiledDestination; allowed: readonly EscapeStrategy[] }[] = [];
  for (const { ua, bot, os } of UA_CORPUS) {
    if (bot || (os !== 'ios' && os !== 'android')) continue;
    for (const compiled of DESTINATIONS) {
      let allowed: readonly EscapeStrategy[] = [];
      resolveVisit(compiled, classifyVisitor(ua), {
        choose: (_cell, offered) => {
          allowed = offered;
          return undefined;
        },
      });
      if (allowed.length > 1) found.push({ ua, compiled, allowed: [...allowed] });
    }
  }
  return found;
}

describe('the visit performer', () => {
  const tokens = createTapTokens({ secret: SECRET });

  /** One visit performed as the hosted redirect performs it, with this chooser; what it recorded. */
  function performer(chooseFor?: (platformKey: string) => ChooseStrategy) {
    const clicks: ClickInput[] = [];
    const respondToVisit = createVisitResponder({
      classify: classifyVisitor,
      nonce: () => 'n0nce',
      redirectStatus: 302,
    });
    const deps = performerDeps({
      respondToVisit,
      classify: classifyVisitor,
      ...(chooseFor ? { chooseFor } : {}),
      analytics: {
        record: (click) => void clicks.push(click),
        tapPrefix: (constant) => tokens.prefix(constant),
        issueTap: (prefix, visit) => tokens.issueWith(prefix, visit),
        newTapId: () => `tap-${clicks.length + 1}`,
      },
    });
    const visit = (ua: string, compiled: CompiledDestination) => {
      const entry = linkEntryOf(compiled);
      const headers = { 'user-agent': ua };
      const facts = factsOf(deps, headers, entry, '/slug');
      const decision = decideVisit(entry, facts, 'visit', deps);
      if (decision.kind === 'count-click') throw new Error('no click limit here');
      const response = performVisit(deps, headers, entry, decision, facts);
      return { response, click: clicks.at(-1) };
    };
    return { visit, clicks };
  }

  it('records the strategy of the page served with its click and in its tap token', () => {
    const { visit } = performer();
    let pages = 0;
    for (const { ua, bot, os } of UA_CORPUS) {
      if (bot || (os !== 'ios' && os !== 'android')) continue;
      const compiled = DESTINATIONS[0] as CompiledDestination;
      const { response, click } = visit(ua, compiled);
      if (response.status !== 200) continue;
      pages += 1;
      const expected = (resolveVisit(compiled, classifyVisitor(ua)) as { plan: EscapePlan }).plan.strategy;
      expect(click?.strategy, ua).toBe(expected);
      const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(String(response.body ?? ''))?.[1];
      expect(tokens.verify(token)?.strategy, ua).toBe(expected);
      expect(tokens.verify(token)?.tapId, ua).toBe(click?.tapId);
    }
    expect(pages).toBeGreaterThan(0);
  });

  // Runs once the planner offers a choice somewhere (the escape matrix, issue #18 part A); the planner
  // before it allows one strategy per cell, so there is nothing for the bandit to choose.
  const choices = cellsWithAChoice();
  it.skipIf(choices.length === 0)(
    "serves the bandit's pick, one cached page per strategy, and records the pick with the tap",
    () => {
      for (const { ua, compiled, allowed } of choices) {
        let pick: EscapeStrategy = allowed[0] as EscapeStrategy;
        const { visit } = performer(createEscapeChooser({ choose: () => pick }));
        const bodies = new Map<EscapeStrategy, string>();
        // Twice round: the second visit of each strategy comes from the page cache.
        for (const round of [1, 2]) {
          for (const strategy of allowed) {
            pick = strategy;
            const { response, click } = visit(ua, compiled);
            expect(click?.strategy, `${ua} ${strategy}`).toBe(strategy);
            const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(String(response.body))?.[1];
            expect(tokens.verify(token)?.strategy, `${ua} ${strategy}`).toBe(strategy);
            const body = String(response.body ?? '').replaceAll(token ?? '', 'token');
            if (round === 1) bodies.set(strategy, body);
            else expect(body, `${strategy} from the cache`).toBe(bodies.get(strategy));
          }
        }
        expect(new Set(bodies.values()).size, ua).toBe(allowed.length);
      }
    },
  );
});
