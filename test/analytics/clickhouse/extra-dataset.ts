import type { Outcome } from '../../../src/analytics/model.js';
import type { ClickInput } from '../../../src/analytics/write/click-input.js';
import type { TapTokens } from '../../../src/analytics/write/tap-tokens.js';
import type { Dataset } from '../dataset.js';
import { DAY, TODAY } from '../setup.js';

/**
 * What dataset.ts leaves out and the ClickHouse store must still answer like the SQL one: taps served an
 * escape page (cells), QR scans, visits to an expired link, bots, a click at a month's edge and one more
 * than 90 days back, and outcomes per cell (one of them replayed with another outcome).
 */

const at = (daysAgo: number, hh: number, mm = 0) => TODAY - daysAgo * DAY + hh * 3_600_000 + mm * 60_000;

const plain = {
  bot: false,
  variant: null,
  routed: null,
  city: null,
  sourceApp: null,
  referrerHost: null,
  country: null,
  platformKey: null,
  tapId: null,
};

export function extraClicks(d: Dataset): ClickInput[] {
  const click = (linkId: string, over: Partial<ClickInput>): ClickInput => ({
    ...plain,
    linkId,
    orgId: d.org.orgId,
    at: at(0, 8),
    device: 'ios',
    ...over,
  });
  return [
    click(d.alpha.id, {
      at: at(2, 7),
      sourceApp: 'instagram',
      platformKey: 'youtube',
      strategy: 'universal',
      tapId: 'x1',
      variant: 1,
    }),
    click(d.alpha.id, {
      at: at(3, 7),
      sourceApp: 'instagram',
      platformKey: 'youtube',
      strategy: 'scheme',
      tapId: 'x2',
      variant: 0,
    }),
    click(d.beta.id, {
      at: at(5, 19),
      device: 'android',
      sourceApp: 'tiktok',
      platformKey: 'spotify',
      strategy: 'intent',
      tapId: 'x3',
    }),
    click(d.beta.id, {
      at: at(8, 6),
      device: 'android',
      sourceApp: 'tiktok',
      platformKey: 'spotify',
      strategy: 'intent',
      tapId: 'x4',
    }),
    click(d.gamma.id, { at: at(0, 9), source: 'qr', country: 'NL' }),
    click(d.gamma.id, { at: at(6, 9), source: 'qr', country: 'NL', referrerHost: 'Example.COM' }),
    click(d.gamma.id, { at: at(4, 12), expired: true, tapId: 'x5', platformKey: 'youtube' }),
    click(d.gamma.id, { at: at(4, 12, 1), bot: true, source: 'qr' }),
    // 2025-02-28 23:30 and 2025-03-01 00:30: a month's edge in one batch (two partitions).
    click(d.beta.id, { at: Date.UTC(2025, 1, 28, 23, 30), country: 'de' }),
    click(d.beta.id, { at: Date.UTC(2025, 2, 1, 0, 30), country: 'xx1' }),
    click(d.alpha.id, { at: at(150, 1), variant: 1 }),
  ];
}

export function extraOutcomes(d: Dataset, tapTokens: TapTokens): { token: string; outcome: Outcome }[] {
  const token = (tapId: string, link: Dataset['alpha'], when: number, extra: Record<string, unknown>) =>
    tapTokens.issue({
      tapId,
      linkId: link.id,
      orgId: d.org.orgId,
      slug: link.slug,
      shortHost: 'lnk.example',
      platformKey: null,
      sourceApp: null,
      country: null,
      city: null,
      device: null,
      ts: new Date(when).toISOString(),
      ...extra,
    });
  const x1 = token('x1', d.alpha, at(2, 7), {
    sourceApp: 'instagram',
    device: 'ios',
    platformKey: 'youtube',
    strategy: 'universal',
    variant: 1,
  });
  return [
    { token: x1, outcome: 'opened' },
    {
      token: token('x2', d.alpha, at(3, 7), {
        sourceApp: 'instagram',
        device: 'ios',
        platformKey: 'youtube',
        strategy: 'scheme',
        variant: 0,
      }),
      outcome: 'browser',
    },
    {
      token: token('x3', d.beta, at(5, 19), {
        sourceApp: 'tiktok',
        device: 'android',
        platformKey: 'spotify',
        strategy: 'intent',
      }),
      outcome: 'opened',
    },
    {
      token: token('x4', d.beta, at(8, 6), {
        sourceApp: 'tiktok',
        device: 'android',
        platformKey: 'spotify',
        strategy: 'intent',
      }),
      outcome: 'broken',
    },
    { token: x1, outcome: 'broken' },
  ];
}
