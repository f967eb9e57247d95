import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `API key creation is limited per organization on ${kind.name}`,
    () => {
      let h: HostedHarness;
      beforeAll(async () => {
        h = await startHosted(kind);
      });
      afterAll(async () => h?.close());

      const legendSession = async (email: string) => {
        const { orgId, cookie } = await h.session({ email, orgName: 'Keys' });
        await h.accounts.setTier(orgId, 'legend');
        return { orgId, cookie };
      };
      const createKey = (cookie: string) =>
        h.app.inject({
          method: 'POST',
          url: '/api/keys',
          headers: { cookie, origin: BASE_URL, 'content-type': 'application/json' },
          payload: { name: 'Zapier' },
        });

      it('at most 20 active keys: the next is 409 too_many_keys until one is revoked', async () => {
        const { orgId, cookie } = await legendSession('cap@example.com');
        for (let i = 0; i < 19; i++) await h.accounts.mintApiKey(orgId);
        const twentieth = await createKey(cookie);
        expect(twentieth.statusCode).toBe(201);
        const refused = await createKey(cookie);
        expect(refused.statusCode).toBe(409);
        expect(refused.json()).toMatchObject({
          error: 'too_many_keys',
          message: expect.stringMatching(/20/),
        });
        const revoked = await h.app.inject({
          method: 'DELETE',
          url: `/api/keys/${twentieth.json().id}`,
          headers: { cookie, origin: BASE_URL },
        });
        expect(revoked.statusCode).toBe(200);
        expect((await createKey(cookie)).statusCode).toBe(201);
      });

      it('at most 10 creations an hour, even when each key is revoked at once (429 with retryAfter)', async () => {
        const { cookie } = await legendSession('churn@example.com');
        for (let i = 0; i < 10; i++) {
          const created = await createKey(cookie);
          expect(created.statusCode).toBe(201);
          await h.app.inject({
            method: 'DELETE',
            url: `/api/keys/${created.json().id}`,
            headers: { cookie, origin: BASE_URL },
          });
        }
        const refused = await createKey(cookie);
        expect(refused.statusCode).toBe(429);
        expect(refused.json().error).toBe('rate_limited');
        expect(refused.json().retryAfter).toBeGreaterThan(3000);
        // Another organization is not affected.
        const other = await legendSession('other@example.com');
        expect((await createKey(other.cookie)).statusCode).toBe(201);
      });
    },
  );
}
