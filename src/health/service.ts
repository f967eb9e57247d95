import { afterCheck, type LinkHealth, nextCheckAt } from '../core/health.js';
import type { GoneSignal } from '../core/platforms/gone-signals.js';
import { createPollingLoop } from '../jobs/polling-loop.js';
import type { GuardedFetcher } from '../net/guarded-fetch.js';
import type { EventOutbox } from '../webhooks/service.js';
import { type CheckResult, checkDestination, HOST_SPACING_MS } from './check.js';
import type { AffectedLink, DestinationRow, HealthRepo } from './repo.js';

/**
 * The destination checker (issue #33): a job on every instance. A pass takes the hosts with destinations
 * due, one lease per host across the cluster (health_hosts), and checks each host's due destinations one
 * after another, never more than one request a second to a host. A destination that turns down or comes
 * back queues `link.destination_down` / `link.destination_up` for each live link pointing at it, and the
 * links with a fallback URL are dropped from every instance's cache, so their visits switch at once.
 */

export interface HealthCheckerDeps {
  repo: HealthRepo;
  fetcher: GuardedFetcher;
  signals: readonly GoneSignal[];
  /** Milliseconds: the root's clock. */
  now: () => number;
  token: () => string;
  /** The link as the API shows it, with the health just found, for the event's payload. */
  describe: (link: AffectedLink, health: LinkHealth) => Promise<unknown>;
  events: Pick<EventOutbox, 'emitIn' | 'nudge'>;
  /** Drops a link's compiled entry on every instance (the cache coherence rule). */
  invalidate: (host: string, slug: string) => void;
  onError: (error: unknown) => void;
  /** Waits between two requests to one host; tests pass a clock of their own. */
  sleep?: (ms: number) => Promise<void>;
  /** How often an idle instance looks for due destinations. */
  intervalMs?: number;
  /** After each pass: the daily digest's turn (digest.ts). */
  afterPass?: () => Promise<void>;
}

/** Hosts one pass takes at once (checked side by side), and destinations per host per lease. */
const HOSTS_PER_PASS = 8;
const PER_HOST = 10;
const POLL_MS = 30_000;
/**
 * Checks one instance makes a second at most, whatever the hosts: enough for 1.7 million a day (a daily
 * pass over 100,000 destinations takes 1.4 h of it), and little enough that the redirect beside it does
 * not notice (bench/health-redirects.mjs: flat out, 170 checks a second cost the hosted 302 a quarter of
 * its throughput). More instances check more, each at this pace.
 */
export const CHECKS_PER_SECOND = 20;
const DAY_MS = 86_400_000;

export function createHealthChecker(deps: HealthCheckerDeps) {
  const { repo } = deps;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const iso = (ms: number) => new Date(ms).toISOString();

  async function checkOne(destination: DestinationRow): Promise<number> {
    const links = await repo.linksOf(destination.url);
    if (links.length === 0) {
      await repo.forget(destination.id);
      return 0;
    }
    const result: CheckResult = await checkDestination(
      deps.fetcher,
      deps.signals,
      destination.url,
      deps.now,
      sleep,
    );
    const now = deps.now();
    const health = afterCheck(destination, result.outcome, now);
    const today = Math.floor(now / DAY_MS);
    const busy = await repo.visitedSince(
      links.map((link) => link.id),
      today - 1,
    );
    const turned =
      health.state !== destination.state && (health.state === 'down' || destination.state === 'down')
        ? health.state === 'down'
          ? 'link.destination_down'
          : 'link.destination_up'
        : null;
    const checkedAt = iso(now);
    const shown: LinkHealth = {
      state: health.state,
      checkedAt,
      since: health.since,
      lastStatus: result.status,
    };
    const payloads = turned ? await Promise.all(links.map((link) => deps.describe(link, shown))) : [];
    let queued = 0;
    await repo.transaction(async (trx) => {
      await repo.record(
        trx,
        destination.id,
        health,
        {
          checkedAt,
          outcome: result.outcome,
          status: result.status,
          error: result.error,
          durationMs: result.durationMs,
        },
        iso(nextCheckAt(health, busy, now)),
      );
      if (turned) {
        for (const [i, link] of links.entries())
          queued += await deps.events.emitIn(trx, link.orgId, turned, payloads[i]);
      }
    });
    if (turned) {
      for (const link of links) if (link.fallbackUrl !== null) deps.invalidate(link.host, link.slug);
    }
    if (queued > 0) deps.events.nudge();
    return result.requests;
  }

  /** One host under its lease: its due destinations, one request a second at most; how many were checked. */
  async function checkHost(host: string): Promise<number> {
    const token = deps.token();
    const started = deps.now();
    const leaseMs = PER_HOST * (15_000 + 2 * HOST_SPACING_MS);
    if (!(await repo.claimHost(host, token, iso(started), iso(started + leaseMs)))) return 0;
    // The last request a check made waits a second before the next check's first one.
    let lastRequests = 0;
    let checked = 0;
    try {
      for (const destination of await repo.dueOn(host, iso(started), PER_HOST)) {
        if (lastRequests > 0) await sleep(HOST_SPACING_MS);
        lastRequests = await checkOne(destination);
        checked++;
      }
    } finally {
      await repo.releaseHost(host, token, iso(deps.now() + (lastRequests > 0 ? HOST_SPACING_MS : 0)));
    }
    return checked;
  }

  /**
   * One pass: up to HOSTS_PER_PASS due hosts side by side. It answers how many hosts it checked without an
   * error, so a pass that found a full set goes round again at once: counting destinations instead made a
   * pass of hosts holding one or two due destinations each (most hosts) look idle, and the next waited for
   * the poll, 8 hosts every 30 s. A failing pass answers less and waits for the poll rather than spin.
   */
  async function pass(): Promise<number> {
    const started = performance.now();
    const hosts = await repo.dueHosts(iso(deps.now()), HOSTS_PER_PASS);
    const outcomes = await Promise.all(
      hosts.map((host) =>
        checkHost(host).then(
          (checked) => ({ ok: 1, checked }),
          (error) => {
            deps.onError(error);
            return { ok: 0, checked: 0 };
          },
        ),
      ),
    );
    await deps.afterPass?.().catch(deps.onError);
    // Paced: the next pass starts no sooner than CHECKS_PER_SECOND allows after this one's checks.
    const checked = outcomes.reduce((sum, outcome) => sum + outcome.checked, 0);
    const early = (checked * 1000) / CHECKS_PER_SECOND - (performance.now() - started);
    if (early > 0) await sleep(early);
    return outcomes.reduce((sum, outcome) => sum + outcome.ok, 0);
  }

  const loop = createPollingLoop({
    pass,
    batchSize: HOSTS_PER_PASS,
    intervalMs: deps.intervalMs ?? POLL_MS,
    onError: deps.onError,
  });

  return {
    start: () => loop.start(),
    stop: () => loop.stop(),
    /** Runs passes now until nothing is due (tests, and an operator's nudge). */
    runNow: () => loop.drain(),
  };
}

export type HealthChecker = ReturnType<typeof createHealthChecker>;
