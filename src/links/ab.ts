import { setImmediate as nextTurn } from 'node:timers/promises';
import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import {
  AB_SAMPLES,
  autoPromoteChoice,
  openRateOf,
  probabilitiesBest,
  type VariantCounts,
} from '../core/ab-test.js';
import { LruCache } from '../core/lru-cache.js';
import type { PlatformTable } from '../core/platforms/index.js';
import { appError, featureError } from '../errors.js';
import { createPollingLoop } from '../jobs/polling-loop.js';
import type { Store } from '../store/database.js';
import { isConnectionError } from '../store/db-errors.js';
import type { Actor, OrgContext } from '../tenancy/context.js';
import { featuresOf, isTier } from '../tenancy/plans.js';
import type { EventOutbox } from '../webhooks/service.js';
import { type AbRepo, type AbTestRecord, createAbRepo, type PromotedBy } from './ab-repo.js';
import type { AbReadout } from './ab-schema.js';
import type { LinkRecord, LinkRepo } from './repo.js';
import type { AbVariant, Link } from './schema.js';

/**
 * A/B tests that conclude (issue #33). The readout: per variant, human visits and reported app-open
 * outcomes over the test's whole UTC days, the open rate, and the probability of being best
 * (core/ab-test.ts). Promoting a variant makes it the link's destination and ends the test, which stays
 * readable in `ab_tests`; an auto-promote rule does the same by itself, once, from a sweep every instance
 * runs (the conclusion is one conditional update, so two instances never both conclude a test).
 */

/** The sweep's period: a test whose rule is met concludes within about a minute. */
export const AB_SWEEP_MS = 60_000;
const SWEEP_PAGE = 200;
const HISTORY = 20;
const DAY_MS = 86_400_000;

/** The actor of an auto-promotion in the audit log: the service, acting on the rule someone set. */
export const AB_AUTO_ACTOR: Actor = { type: 'system', id: 'ab-auto-promote', label: 'A/B auto-promote' };

export interface AbTestDeps {
  repo: AbRepo;
  links: Pick<LinkRepo, 'find'>;
  /** The Link as the API shows it: the event's data and the promote's answer. */
  present: (ctx: OrgContext, link: LinkRecord) => Link;
  table: PlatformTable;
  /** Per-variant human clicks and outcomes of a link over whole UTC days (the analytics service). */
  variantCounts: (
    orgId: string,
    linkId: string,
    variants: number,
    range: { from: number; to: number },
  ) => Promise<VariantCounts[]>;
  /** ANALYTICS=on: false reads zeros. */
  configured: boolean;
  events: EventOutbox;
  audit?: AuditLog;
  /** Drops the link from every instance's cache: its visits now go to the winner. */
  invalidate: (host: string, slug: string) => void;
  now: () => Date;
  uuid: () => string;
  onError: (error: unknown) => void;
  /** Monte Carlo draws per readout (AB_SAMPLES). */
  samples?: number;
}

const dayOf = (iso: string) => Math.floor(Date.parse(iso) / DAY_MS);
const dayIso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** What a readout is computed from: the variants, when the test ran, and how it ended. */
interface TestShape {
  variants: AbVariant[];
  startedAt: string;
  /** Null while running: counted to today. */
  concluded: AbTestRecord | null;
}

export function createAbTests(deps: AbTestDeps) {
  const { repo } = deps;
  const samples = deps.samples ?? AB_SAMPLES;
  // The Monte Carlo is deterministic in its counts: repeated reads of a quiet test cost a lookup.
  const memo = new LruCache<string, number[]>(2_000);

  function probabilities(linkId: string, counts: VariantCounts[]): number[] {
    const key = `${linkId}|${counts.map((c) => `${c.visits},${c.opened},${c.browser},${c.broken}`).join('|')}`;
    const known = memo.get(key);
    if (known) return known;
    const computed = probabilitiesBest(counts, linkId, samples);
    memo.set(key, computed);
    return computed;
  }

  async function load(ctx: OrgContext, id: string): Promise<LinkRecord> {
    if (!ctx.features.abTesting) throw featureError('abTesting');
    const link = await deps.links.find(ctx.orgId, id);
    if (!link) throw appError('not_found', 'No such link');
    return link;
  }

  const runningShape = (link: LinkRecord): TestShape | null =>
    link.ab ? { variants: link.ab, startedAt: link.abStartedAt ?? link.createdAt, concluded: null } : null;

  async function measure(link: LinkRecord, shape: TestShape) {
    const from = dayOf(shape.startedAt);
    const to = Math.max(from, dayOf(shape.concluded?.promotedAt ?? deps.now().toISOString()));
    const counts = await deps.variantCounts(link.orgId, link.id, shape.variants.length, { from, to });
    return { counts, probabilities: probabilities(link.id, counts), window: { from, to } };
  }

  async function readoutOf(link: LinkRecord, shape: TestShape): Promise<AbReadout> {
    const { counts, probabilities: best, window } = await measure(link, shape);
    const history = await repo.concluded(link.orgId, link.id, HISTORY);
    const test = shape.concluded;
    return {
      linkId: link.id,
      testId: test?.id ?? null,
      status: test ? 'concluded' : 'running',
      startedAt: shape.startedAt,
      promotedAt: test?.promotedAt ?? null,
      promotedVariant: test?.promotedVariant ?? null,
      promotedBy: test?.promotedBy ?? null,
      autoPromote: test ? test.autoPromote : (link.abAutoPromote ?? null),
      window: { from: dayIso(window.from), to: dayIso(window.to) },
      samples,
      configured: deps.configured,
      sampled: true,
      variants: shape.variants.map((variant, index) => {
        const c = counts[index] ?? { visits: 0, opened: 0, browser: 0, broken: 0 };
        const rate = openRateOf(c);
        return {
          variant: index,
          url: variant.u,
          weight: variant.w,
          visits: c.visits,
          outcomes: { opened: c.opened, browser: c.browser, broken: c.broken },
          openRate: rate === null ? null : Math.round(rate * 10_000) / 10_000,
          probabilityBest: best[index] ?? 0,
        };
      }),
      history: history.map((row) => ({
        id: row.id,
        startedAt: row.startedAt,
        promotedAt: row.promotedAt,
        promotedVariant: row.promotedVariant,
        promotedBy: row.promotedBy,
        url: row.variants[row.promotedVariant]?.u ?? '',
      })),
    };
  }

  /**
   * Ends `link`'s running test on `variant`: in one transaction, the link re-pointed (only if it is still
   * as read), the test kept, `link.updated` queued and the audit row written; then the caches dropped.
   * Null when the link changed since it was read (nothing written).
   */
  async function conclude(
    ctx: OrgContext,
    link: LinkRecord,
    variant: number,
    by: PromotedBy,
  ): Promise<{ link: Link; test: AbTestRecord } | null> {
    const shape = runningShape(link);
    const winner = link.ab?.[variant];
    if (!shape || !winner) return null;
    const { counts, probabilities: best } = await measure(link, shape);
    const now = deps.now().toISOString();
    const after: LinkRecord = {
      ...link,
      destination: winner.u,
      platformKey: deps.table.match(winner.u)?.key ?? null,
      ab: null,
      abStartedAt: null,
      abAutoPromote: null,
      updatedAt: now,
    };
    const test: AbTestRecord = {
      id: deps.uuid(),
      orgId: link.orgId,
      linkId: link.id,
      variants: shape.variants,
      startedAt: shape.startedAt,
      promotedAt: now,
      promotedVariant: variant,
      promotedBy: by,
      autoPromote: link.abAutoPromote ?? null,
      decision: counts.map((c, i) => ({ ...c, probabilityBest: best[i] ?? 0 })),
    };
    const shown = deps.present(ctx, after);
    const changes = {
      ...changesBetween(deps.present(ctx, link), shown, { only: ['destination', 'ab', 'abAutoPromote'] }),
      promotedVariant: variant,
      promotedBy: by,
      probabilityBest: best[variant] ?? 0,
      visits: counts.map((c) => c.visits),
    };
    let queued = 0;
    const concluded = await repo.transaction(async (trx) => {
      if (!(await repo.conclude(trx, link, after, test))) return false;
      queued = await deps.events.emitIn(trx, link.orgId, 'link.updated', shown);
      await deps.audit?.record(trx, ctx, {
        action: 'link.ab_promoted',
        target: { type: 'link', id: link.id },
        changes,
      });
      return true;
    });
    if (!concluded) return null;
    if (queued > 0) deps.events.nudge();
    deps.invalidate(link.host, link.slug);
    return { link: shown, test };
  }

  /** Checks one link's rule and concludes its test when the rule is met; true when it did. */
  async function autoPromote(candidate: { id: string; orgId: string; tier: string }): Promise<boolean> {
    if (!isTier(candidate.tier)) return false;
    const features = featuresOf(candidate.tier);
    // A plan without A/B tests (a downgrade) keeps its variants running but decides nothing by itself.
    if (!features.abTesting) return false;
    const link = await deps.links.find(candidate.orgId, candidate.id);
    const shape = link && runningShape(link);
    const rule = link?.abAutoPromote;
    if (!link || !shape || !rule) return false;
    const { counts, probabilities: best } = await measure(link, shape);
    const variant = autoPromoteChoice(counts, best, rule);
    if (variant === null) return false;
    const ctx: OrgContext = {
      orgId: link.orgId,
      tier: candidate.tier,
      features,
      actor: AB_AUTO_ACTOR,
    };
    return (await conclude(ctx, link, variant, 'auto')) !== null;
  }

  /** One walk over every link with a rule; each link's check is its own, so one failure stops no other. */
  async function sweep(): Promise<number> {
    let promoted = 0;
    let after = '';
    for (;;) {
      const page = await repo.autoPromoting(after, SWEEP_PAGE);
      for (const candidate of page) {
        try {
          if (await autoPromote(candidate)) promoted++;
        } catch (error) {
          deps.onError(error);
        }
        // The Monte Carlo runs on the thread that serves redirects: one link at a time.
        await nextTurn();
      }
      const last = page.at(-1);
      if (!last || page.length < SWEEP_PAGE) break;
      after = last.id;
    }
    return promoted;
  }

  const loop = createPollingLoop({
    pass: sweep,
    // A pass walks every candidate: never repeated at once, whatever it promoted.
    batchSize: Number.POSITIVE_INFINITY,
    intervalMs: AB_SWEEP_MS,
    onError: deps.onError,
  });

  return {
    /**
     * The link's running test, else its latest concluded one (`testId`: that concluded test). 404
     * no_ab_test when the link never concluded a test and runs none.
     */
    async readout(ctx: OrgContext, id: string, testId?: string): Promise<AbReadout> {
      const link = await load(ctx, id);
      if (testId !== undefined) {
        const test = await repo.find(ctx.orgId, id, testId);
        if (!test) throw appError('not_found', 'No such A/B test of this link');
        return readoutOf(link, { variants: test.variants, startedAt: test.startedAt, concluded: test });
      }
      const running = runningShape(link);
      if (running) return readoutOf(link, running);
      const [latest] = await repo.concluded(ctx.orgId, id, 1);
      if (!latest) throw appError('no_ab_test');
      return readoutOf(link, { variants: latest.variants, startedAt: latest.startedAt, concluded: latest });
    },

    /** Makes `variant` the destination and ends the test; the answer is the link and the concluded readout. */
    async promote(ctx: OrgContext, id: string, variant: number): Promise<{ link: Link; test: AbReadout }> {
      // One retry: a click limit or an edit may have touched the row between the read and the write.
      for (let attempt = 0; attempt < 2; attempt++) {
        const link = await load(ctx, id);
        if (link.readOnly) throw appError('read_only');
        if (!link.ab) throw appError('ab_not_running');
        if (variant >= link.ab.length) {
          const message = `The A/B test has variants 0 to ${link.ab.length - 1}`;
          throw appError('unknown_variant', message, {
            issues: [{ code: 'custom', path: ['variant'], message }],
          });
        }
        const done = await conclude(ctx, link, variant, 'user');
        if (done) {
          const { test } = done;
          const shape = { variants: test.variants, startedAt: test.startedAt, concluded: test };
          const current = (await deps.links.find(ctx.orgId, id)) ?? link;
          return { link: done.link, test: await readoutOf(current, shape) };
        }
      }
      throw appError('ab_not_running', 'The A/B test changed while it was being promoted; read it again');
    },

    /** One pass of the auto-promote sweep now (tests; the loop runs it every minute). */
    sweep: () => loop.drain(),
    start: () => loop.start(),
    stop: () => loop.stop(),
  };
}

export type AbTests = ReturnType<typeof createAbTests>;

/** The A/B tests as the hosted service runs them, on its store, cache, outbox and analytics. */
export function composeAbTests(parts: {
  store: Store;
  linkRepo: LinkRepo;
  links: { present: AbTestDeps['present'] };
  table: PlatformTable;
  analytics: { configured: boolean; variantCounts: AbTestDeps['variantCounts'] };
  events: EventOutbox;
  audit?: AuditLog;
  cache: { invalidate(host: string, slug: string): void };
  logger: { error(details: object, message: string): void };
  now: () => Date;
  uuid: () => string;
}): AbTests {
  return createAbTests({
    repo: createAbRepo(parts.store),
    links: parts.linkRepo,
    present: parts.links.present,
    table: parts.table,
    variantCounts: parts.analytics.variantCounts,
    configured: parts.analytics.configured,
    events: parts.events,
    ...(parts.audit ? { audit: parts.audit } : {}),
    invalidate: (host, slug) => parts.cache.invalidate(host, slug),
    now: parts.now,
    uuid: parts.uuid,
    // An outage is logged once by the pool's health tracker.
    onError: (error) => {
      if (!isConnectionError(error)) parts.logger.error({ err: error }, 'A/B auto-promote failed');
    },
  });
}
