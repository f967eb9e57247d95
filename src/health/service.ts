import type { Transaction } from 'kysely';
import { afterCheck, type LinkHealth, nextCheckAt } from '../core/health.js';
import type { GoneSignal } from '../core/platforms/gone-signals.js';
import { createPollingLoop } from '../jobs/polling-loop.js';
import type { GuardedFetcher } from '../net/guarded-fetch.js';
import type { Database } from '../store/schema.js';
import type { EventOutbox } from '../webhooks/service.js';
import { CHECK_TIMEOUT_MS, type CheckResult, checkDestination, HOST_SPACING_MS } from './check.js';
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

  /**
   * A check's result, written later in its pass's transaction (`write`, answering the events it queued),
   * and the links with a fallback whose cached entry goes once that transaction has committed.
   */
  interface Finding {
    write: (trx: Transaction<Database>) => Promise<number>;
    fallbacks: AffectedLink[];
  }

  async function checkOne(destination: DestinationRow): Promise<{ requests: number; finding: Finding }> {
    const links = await repo.linksOf(destination.url);
    if (links.length === 0) {
      const write = async (trx: Transaction<Database>) => {
        await repo.forget(trx, destination.id);
        return 0;
      };
      return { requests: 0, finding: { write, fallbacks: [] } };
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
    const write = async (trx: Transaction<Database>) => {
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
      let queued = 0;
      if (turned) {
        for (const [i, link] of links.entries())
          queued += await deps.events.emitIn(trx, link.orgId, turned, payloads[i]);
      }
      return queued;
    };
    const fallbacks = turned ? links.filter((link) => link.fallbackUrl !== null) : [];
    return { requests: result.requests, finding: { write, fallbacks } };
  }

  /**
   * One host under this instance's lease: its due destinations, one request a second at most. Nothing is
   * written here: the findings go into the pass's one transaction.
   */
  async function checkHost(
    host: string,
    started: number,
  ): Promise<{ host: string; findings: Finding[]; releaseAt: number; failed: boolean }> {
    // The last request a check made waits a second before the next check's first one.
    let lastRequests = 0;
    const findings: Finding[] = [];
    let failed = false;
    try {
      for (const destination of await repo.dueOn(host, iso(started), PER_HOST)) {
        if (lastRequests > 0) await sleep(HOST_SPACING_MS);
        const { requests, finding } = await checkOne(destination);
        lastRequests = requests;
        findings.push(finding);
      }
    } catch (error) {
      // What was found before the failure is still written; the rest is due again next pass.
      failed = true;
      deps.onError(error);
    }
    return { host, findings, releaseAt: deps.now() + (lastRequests > 0 ? HOST_SPACING_MS : 0), failed };
  }

  /**
   * One pass: up to HOSTS_PER_PASS due hosts side by side, and one transaction before and one after for
   * all of them (leases taken; results, history rows, events and leases given back), which yield to the
   * click writer on SQLite (repo.ts). Three writes a check, each waiting for that writer's lock on the
   * event loop, had held the hosted 302's p99 at 2.4 times the checker-off figure (bench/health-redirects.mjs).
   *
   * It answers how many hosts it checked, so a pass that found a full set goes round again at once:
   * counting destinations instead made a pass of hosts holding one or two due destinations each (most
   * hosts) look idle, and the next waited for the poll, 8 hosts every 30 s. A failing pass answers less
   * and waits for the poll rather than spin.
   */
  async function pass(): Promise<number> {
    const started = performance.now();
    const token = deps.token();
    const now = deps.now();
    // Long enough for a host's every check to time out twice (HEAD, then GET).
    const leaseMs = PER_HOST * (2 * CHECK_TIMEOUT_MS + 2 * HOST_SPACING_MS);
    const due = await repo.dueHosts(iso(now), HOSTS_PER_PASS);
    const hosts = await repo.claimHosts(due, token, iso(now), iso(now + leaseMs));
    const checked = await Promise.all(hosts.map((host) => checkHost(host, now)));
    const findings = checked.flatMap((host) => host.findings);
    const queued = await repo.transaction(async (trx) => {
      let count = 0;
      for (const finding of findings) count += await finding.write(trx);
      for (const { host, releaseAt } of checked) await repo.releaseHost(trx, host, token, iso(releaseAt));
      return count;
    });
    for (const finding of findings)
      for (const link of finding.fallbacks) deps.invalidate(link.host, link.slug);
    if (queued > 0) deps.events.nudge();
    await deps.afterPass?.().catch(deps.onError);
    // Paced: the next pass starts no sooner than CHECKS_PER_SECOND allows after this one's checks.
    const early = (findings.length * 1000) / CHECKS_PER_SECOND - (performance.now() - started);
    if (early > 0) await sleep(early);
    return checked.filter((host) => !host.failed).length;
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
