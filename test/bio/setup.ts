import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import type { Outcome } from '../../src/analytics/repo.js';
import type { ClickInput } from '../../src/analytics/write/click-input.js';
import { createWriteRepo } from '../../src/analytics/write/repo.js';
import type { Tier } from '../../src/tenancy/plans.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import type { StoreKind } from '../helpers/stores.js';

/**
 * Shared set-up of the creator-pages suites: the hosted service through the composition root
 * (startHosted) on a fixed clock, with the real analytics behind the bio stats and the media kit. A test
 * chooses its numbers by writing clicks and tap outcomes into the analytics store (`clicks`, `outcomes`).
 */

export { BASE_URL };

/** 2026-01-02T12:00Z: the service's clock; seeded clicks land on this day or the one before. */
export const NOW = Date.UTC(2026, 0, 2, 12);
const DAY_MS = 86_400_000;

/** An organization as its owner signs up for it at `tier`: a session for /api, an API key for /v1. */
export interface Org {
  orgId: string;
  tier: Tier;
  cookie: string;
  apiKey: string;
}

export interface Harness extends Omit<HostedHarness, 'org'> {
  org(tier: Tier): Promise<Org>;
  /** A short link of the organization's, made through the dashboard API. */
  link(org: Org, url?: string): Promise<{ id: string; shortUrl: string; destination: string }>;
  /**
   * `count` human visits of the link written through the analytics write path (with their rollups),
   * `daysAgo` days before NOW; `platformKey` is the platform they count under (null: the web).
   */
  clicks(
    org: Org,
    linkId: string,
    count: number,
    options?: { platformKey?: string | null; daysAgo?: number },
  ): Promise<void>;
  /** Tap outcomes of the link reported today, as the escape page's beacon records them. */
  outcomes(org: Org, linkId: string, counts: Partial<Record<Outcome, number>>): Promise<void>;
}

/** `analytics: false` is ANALYTICS=off (not connected); `flagsOff` is FLAGS_OFF. */
export async function harness(
  kind: StoreKind,
  options: { flagsOff?: string[]; analytics?: boolean } = {},
): Promise<Harness> {
  const env: Record<string, string> = { ANALYTICS: options.analytics === false ? 'off' : 'on' };
  if (options.flagsOff?.length) env.FLAGS_OFF = options.flagsOff.join(',');
  const h = await startHosted(kind, env, { now: () => NOW });
  const write = createWriteRepo(h.testStore.store);
  return {
    ...h,
    async org(tier: Tier): Promise<Org> {
      const { orgId, cookie, apiKey } = await h.owner(tier, `${tier} org`);
      return { orgId, tier, cookie, apiKey };
    },
    async link(org: Org, url = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ') {
      const res = await h.api(org.cookie, { method: 'POST', url: '/api/links', payload: { url } });
      if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`link: ${res.body}`);
      const link = res.json();
      return {
        id: link.id as string,
        shortUrl: link.shortUrl as string,
        destination: link.destination as string,
      };
    },
    async clicks(
      org: Org,
      linkId: string,
      count: number,
      options: { platformKey?: string | null; daysAgo?: number } = {},
    ) {
      const at = NOW - (options.daysAgo ?? 0) * DAY_MS;
      const click: ClickInput = {
        linkId,
        orgId: org.orgId,
        at,
        bot: false,
        variant: null,
        routed: null,
        country: null,
        city: null,
        device: 'ios',
        sourceApp: 'instagram',
        referrerHost: null,
        platformKey: options.platformKey ?? null,
        tapId: null,
      };
      await write.writeClicks(Array.from({ length: count }, (_, i) => ({ ...click, at: at - i })));
    },
    async outcomes(org: Org, linkId: string, counts: Partial<Record<Outcome, number>>) {
      for (const [outcome, n] of Object.entries(counts) as [Outcome, number][]) {
        for (let i = 0; i < n; i++) {
          await write.insertOutcome({
            tapId: randomUUID(),
            orgId: org.orgId,
            linkId,
            day: Math.floor(NOW / DAY_MS),
            outcome,
            variant: null,
            platformKey: null,
            at: NOW,
          });
        }
      }
    },
  };
}

/**
 * Calls as an organization's owner: /v1 with its API key (the API answers Legend only), everything else
 * with its session, as the dashboard sends it; `null` sends no credentials.
 */
export function as(h: Pick<HostedHarness, 'app' | 'api' | 'v1'>, org: Org | null) {
  const send = (options: InjectOptions) => {
    const url = String(options.url);
    if (url.startsWith('/v1/')) return org ? h.v1(org.apiKey, options) : h.app.inject(options);
    if (url.startsWith('/api/')) return h.api(org?.cookie ?? null, options);
    // The public pages, on the service's own host.
    return h.app.inject({ ...options, headers: { host: 'lnk.example', ...(options.headers ?? {}) } });
  };
  return {
    get: (url: string) => send({ method: 'GET', url }),
    delete: (url: string) => send({ method: 'DELETE', url }),
    put: (url: string, payload: unknown) =>
      send({
        method: 'PUT',
        url,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      }),
  };
}

/** Handles unique per test run, so suites on one store never collide by accident. */
let counter = 0;
export function uniqueHandle(prefix = 'creator'): string {
  counter += 1;
  return `${prefix}_${process.pid % 1000}_${counter}`;
}
