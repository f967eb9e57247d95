import { provisioned, type SocialDeps } from './deps.js';
import { ProviderError } from './provider.js';
import { classifyProviderError } from './provider-errors.js';
import { createSocialRepo } from './repo.js';

/**
 * The daily token-refresh sweep (hosted-service.md 4.5, limits in 8): live connections whose token
 * expires within 7 days and is at least 24 hours old get a successor token; a refusal sets
 * `needs_reconnect` with plain-language text. Safe when two instances run it at once: each row is
 * claimed with a conditional UPDATE, and only the claimant calls the provider.
 */

const HORIZON_MS = 7 * 86_400_000;
const MIN_AGE_MS = 86_400_000;
const CLAIM_MS = 5 * 60_000;
const DEFAULT_LIFETIME_S = 60 * 86_400;
const REFUSED = 'Instagram refused to renew the connection. Please reconnect Instagram to resume DMs.';

export interface SweepCounts {
  scanned: number;
  refreshed: number;
  needsReconnect: number;
  skipped: number;
  errors: number;
}

export function createRefreshSweep(deps: SocialDeps) {
  const repo = createSocialRepo(deps.store);

  return async function sweep(): Promise<SweepCounts> {
    const counts: SweepCounts = { scanned: 0, refreshed: 0, needsReconnect: 0, skipped: 0, errors: 0 };
    const ready = provisioned(deps);
    const now = deps.now();
    const nowIso = now.toISOString();
    const horizon = new Date(now.getTime() + HORIZON_MS).toISOString();
    const oldEnough = new Date(now.getTime() - MIN_AGE_MS).toISOString();
    const rows = await repo.expiringAccounts(horizon);
    counts.scanned = rows.length;
    for (const row of rows) {
      if (row.token_issued_at > oldEnough || !ready) {
        counts.skipped += 1;
        continue;
      }
      const claim = deps.uuid();
      const claimed = await repo.claimRefresh(row.id, {
        claim,
        until: new Date(now.getTime() + CLAIM_MS).toISOString(),
        horizon,
        oldEnough,
        now: nowIso,
      });
      if (!claimed) {
        counts.skipped += 1; // another instance holds it, or it changed since the scan
        continue;
      }
      // Every write below holds only while our claim stands.
      const mine = (changes: Parameters<typeof repo.updateClaimed>[2]) =>
        repo.updateClaimed(row.id, claim, changes);
      try {
        const grant = await ready.provider.refresh(ready.vault.open(row.token_ciphertext, row.id));
        const issued = deps.now();
        await mine({
          // Always store what comes back: the provider may or may not return the same string.
          token_ciphertext: ready.vault.seal(grant.accessToken, row.id),
          expires_at: new Date(
            issued.getTime() + (grant.expiresIn || DEFAULT_LIFETIME_S) * 1000,
          ).toISOString(),
          token_issued_at: issued.toISOString(),
          refresh_claim: null,
          refresh_claimed_until: null,
          updated_at: issued.toISOString(),
        });
        counts.refreshed += 1;
      } catch (error) {
        const classified =
          error instanceof ProviderError ? classifyProviderError(error.code, error.subcode) : null;
        const refused =
          error instanceof ProviderError &&
          error.status !== 0 &&
          classified !== null &&
          !classified.transient;
        if (refused) {
          await mine({
            status: 'needs_reconnect',
            status_message: (classified.reconnect && classified.reason) || REFUSED,
            refresh_claim: null,
            refresh_claimed_until: null,
            updated_at: deps.now().toISOString(),
          });
          counts.needsReconnect += 1;
        } else {
          // Outage or throttle: release the claim; tomorrow's sweep tries again.
          await mine({ refresh_claim: null, refresh_claimed_until: null });
          deps.logger?.warn(
            { accountId: row.id, status: error instanceof ProviderError ? error.status : null },
            'token refresh failed',
          );
          counts.errors += 1;
        }
      }
    }
    return counts;
  };
}
