import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRefreshSweep } from '../../src/social/refresh.js';
import { PROVIDER_ERRORS } from '../fakes/social-provider.js';
import { storeKinds } from '../helpers/stores.js';
import { CRON_SECRET, type SocialHarness, startSocial } from './harness.js';
import { connect } from './helpers.js';

const DAY = 86_400_000;

/** The refresh sweep of 4.5: 7-day horizon, 24 h minimum age, needs_reconnect on refusal, concurrency. */
describe.each(storeKinds)('social token refresh on $name', (kind) => {
  let h: SocialHarness;
  beforeEach(async () => {
    if (!kind.skipReason) h = await startSocial(kind);
  });
  afterEach(async () => h?.close());
  const run = it.skipIf(kind.skipReason !== null);
  const bothClocks = (ms: number) => {
    h.advance(ms);
    h.fake.advance(ms);
  };
  const sweepRoute = async () =>
    (
      await h.app.inject({
        method: 'POST',
        url: '/internal/social-refresh',
        headers: { 'x-cron-secret': CRON_SECRET },
      })
    ).json();
  const accountsOf = async (orgId: string) =>
    (await h.as(orgId, { method: 'GET', url: '/api/social' })).json().accounts;

  run('fresh tokens are outside the horizon; inside it they get a successor token', async () => {
    const { orgId } = await h.org('legend');
    const { userId } = await connect(h, orgId);
    expect(await sweepRoute()).toEqual({
      scanned: 0,
      refreshed: 0,
      needsReconnect: 0,
      skipped: 0,
      errors: 0,
    });
    const before = (await accountsOf(orgId))[0].expiresAt;
    bothClocks(54 * DAY);
    expect(await sweepRoute()).toEqual({
      scanned: 1,
      refreshed: 1,
      needsReconnect: 0,
      skipped: 0,
      errors: 0,
    });
    const after = (await accountsOf(orgId))[0];
    expect(after.status).toBe('active');
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.parse(before) + 50 * DAY);
    expect(h.fake.tokensOf(userId)).toHaveLength(3); // short, long, successor
    expect(await sweepRoute()).toMatchObject({ scanned: 0 });
  });

  run('a token younger than 24 hours is skipped even inside the horizon', async () => {
    const { orgId } = await h.org('legend');
    await connect(h, orgId);
    // Simulate a short-lived grant: expiry inside the horizon, issued just now.
    await h.db
      .updateTable('social_accounts')
      .set({ expires_at: new Date(Date.now() + 3 * DAY).toISOString() })
      .execute();
    expect(await sweepRoute()).toEqual({
      scanned: 1,
      refreshed: 0,
      needsReconnect: 0,
      skipped: 1,
      errors: 0,
    });
  });

  run(
    'a refusal sets needs_reconnect with plain text; needs_reconnect rows are not scanned again',
    async () => {
      const refused = await h.org('legend');
      const healthy = await h.org('legend');
      const a = await connect(h, refused.orgId);
      await connect(h, healthy.orgId);
      bothClocks(55 * DAY);
      h.fake.revokeTokensOf(a.userId);
      expect(await sweepRoute()).toEqual({
        scanned: 2,
        refreshed: 1,
        needsReconnect: 1,
        skipped: 0,
        errors: 0,
      });
      const [account] = await accountsOf(refused.orgId);
      expect(account.status).toBe('needs_reconnect');
      expect(account.statusMessage).toBe(
        'Instagram signed us out (password or security change). Please reconnect.',
      );
      expect((await accountsOf(healthy.orgId))[0].status).toBe('active');
      expect((await sweepRoute()).scanned).toBe(0);
    },
  );

  run('an expired token cannot be refreshed: needs_reconnect', async () => {
    const { orgId } = await h.org('legend');
    await connect(h, orgId);
    bothClocks(61 * DAY);
    expect(await sweepRoute()).toMatchObject({ scanned: 1, needsReconnect: 1 });
    expect((await accountsOf(orgId))[0].statusMessage).toMatch(/expired/);
  });

  run('an outage counts an error and leaves the account active for the next sweep', async () => {
    const { orgId } = await h.org('legend');
    await connect(h, orgId);
    bothClocks(55 * DAY);
    h.fake.failNext('refresh', PROVIDER_ERRORS.unavailable);
    expect(await sweepRoute()).toEqual({
      scanned: 1,
      refreshed: 0,
      needsReconnect: 0,
      skipped: 0,
      errors: 1,
    });
    expect((await accountsOf(orgId))[0].status).toBe('active');
    expect(await sweepRoute()).toMatchObject({ refreshed: 1 });
  });

  run('two instances sweeping at once refresh each account exactly once', async () => {
    const users: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const { orgId } = await h.org('legend');
      users.push((await connect(h, orgId)).userId);
    }
    bothClocks(54 * DAY);
    const calls = h.fake.calls.length;
    const [one, two] = await Promise.all([createRefreshSweep(h.deps)(), createRefreshSweep(h.deps)()]);
    expect(one.refreshed + two.refreshed).toBe(6);
    // Whatever one instance refreshed, the other skipped (claimed, or no longer due).
    expect(one.refreshed + two.refreshed + one.skipped + two.skipped).toBe(one.scanned + two.scanned);
    const refreshCalls = h.fake.calls.slice(calls).filter((call) => call.endsWith('/refresh_access_token'));
    expect(refreshCalls).toHaveLength(6);
    for (const user of users) expect(h.fake.tokensOf(user)).toHaveLength(3);
  });
});
