import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import type { Store } from '../../src/store/database.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { addContact, makeLink } from './setup.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `audience list, detail, delete and export on ${kind.name}`,
    () => {
      type Owner = Awaited<ReturnType<HostedHarness['owner']>>;
      let h: HostedHarness;
      let store: Store;
      let legend: Owner;
      let other: Owner;

      /** /v1 with the organization's API key, /api with its owner's session. */
      const call = (org: Owner, method: 'GET' | 'DELETE', url: string) =>
        url.startsWith('/v1/') ? h.v1(org.apiKey, { method, url }) : h.api(org.cookie, { method, url });

      /** The hosted service through the composition root; FLAGS_OFF as a test asks. */
      let running: HostedHarness | undefined;
      const stop = async () => {
        const was = running;
        running = undefined;
        await was?.close();
      };
      const start = async (env: Record<string, string> = {}) => {
        await stop();
        h = await startHosted(kind, env);
        running = h;
        store = h.testStore.store;
        legend = await h.owner('legend');
        other = await h.owner('legend');
      };
      const flagOff = { FLAGS_OFF: 'audienceCapture' };

      beforeEach(async () => {
        await start();
      });
      afterEach(stop);

      it('pages /v1/audience newest first with limit and offset; count is the total', async () => {
        for (let i = 0; i < 5; i++)
          await addContact(store, legend.orgId, { email: `c${i}@example.com`, createdAt: at(i) });
        await addContact(store, other.orgId, { email: 'elsewhere@example.com', createdAt: at(9) });
        const page = await call(legend, 'GET', '/v1/audience?limit=2&offset=1');
        expect(page.statusCode).toBe(200);
        expect(page.json()).toEqual({
          count: 5,
          contacts: [
            {
              id: expect.any(String),
              email: 'c3@example.com',
              sourceSlug: null,
              country: null,
              createdAt: at(3),
            },
            {
              id: expect.any(String),
              email: 'c2@example.com',
              sourceSlug: null,
              country: null,
              createdAt: at(2),
            },
          ],
        });
        const all = (await call(legend, 'GET', '/v1/audience')).json();
        expect(all.contacts.map((c: { email: string }) => c.email)).toEqual(
          [4, 3, 2, 1, 0].map((i) => `c${i}@example.com`),
        );
        expect((await call(legend, 'GET', '/v1/audience?offset=4')).json().contacts).toHaveLength(1);
        const tooBig = await call(legend, 'GET', '/v1/audience?limit=201');
        expect(tooBig.statusCode).toBe(400);
        expect(tooBig.json().error).toBe('invalid_query');
      });

      it('gives the dashboard the newest 500 contacts with the total count', async () => {
        const rows = Array.from({ length: 502 }, (_, i) => ({
          id: randomUUID(),
          org_id: legend.orgId,
          email: `bulk${i}@example.com`,
          consent_text: 'ok',
          source_slug: null,
          source_link_id: null,
          country: null,
          unsubscribed_at: null,
          created_at: at(i),
        }));
        await audienceDb(store).insertInto('contacts').values(rows.slice(0, 251)).execute();
        await audienceDb(store).insertInto('contacts').values(rows.slice(251)).execute();
        const body = (await call(legend, 'GET', '/api/audience')).json();
        expect(body.count).toBe(502);
        expect(body.contacts).toHaveLength(500);
        expect(body.contacts[0].email).toBe('bulk501@example.com');
        expect(body.contacts[499].email).toBe('bulk2@example.com');
      });

      it('shows a contact in detail with consent, unsubscribe state and the source link while it exists', async () => {
        const linkId = await makeLink(store, legend.orgId, 'promo');
        const id = await addContact(store, legend.orgId, {
          email: 'fan@example.com',
          createdAt: at(1),
          sourceSlug: 'promo',
          sourceLinkId: linkId,
          country: 'DE',
          consentText: 'I agree to receive emails from Org legend.',
        });
        const detail = await call(legend, 'GET', `/v1/audience/${id}`);
        expect(detail.statusCode).toBe(200);
        expect(detail.json()).toEqual({
          id,
          email: 'fan@example.com',
          sourceSlug: 'promo',
          country: 'DE',
          createdAt: at(1),
          consentText: 'I agree to receive emails from Org legend.',
          unsubscribedAt: null,
          sourceLinkId: linkId,
          broadcasts: [],
        });
        expect((await call(legend, 'GET', `/api/audience/${id}`)).statusCode).toBe(200);
        await store.db.deleteFrom('links').where('id', '=', linkId).execute();
        expect((await call(legend, 'GET', `/v1/audience/${id}`)).json().sourceLinkId).toBeNull();
        expect((await call(other, 'GET', `/v1/audience/${id}`)).statusCode).toBe(404);
      });

      it('deletes a contact entirely, on any tier and with the flag off; another organization gets 404', async () => {
        await start(flagOff);
        const id = await addContact(store, legend.orgId, { email: 'gone@example.com', createdAt: at(1) });
        expect((await call(other, 'DELETE', `/v1/audience/${id}`)).statusCode).toBe(404);
        await h.accounts.setTier(legend.orgId, 'sidekick');
        const deleted = await call(legend, 'DELETE', `/api/audience/${id}`);
        expect(deleted.statusCode).toBe(200);
        expect(deleted.json()).toEqual({ deleted: true });
        const left = await audienceDb(store)
          .selectFrom('contacts')
          .select('id')
          .where('id', '=', id)
          .execute();
        expect(left).toEqual([]);
        // Back on Legend, whose API key /v1 takes.
        await h.accounts.setTier(legend.orgId, 'legend');
        expect((await call(legend, 'DELETE', `/v1/audience/${id}`)).statusCode).toBe(404);
      });

      it('answers 403 feature_disabled on the list, detail and export when the audienceCapture flag is off', async () => {
        await start(flagOff);
        const id = await addContact(store, legend.orgId, { email: 'x@example.com', createdAt: at(1) });
        for (const url of [
          '/api/audience',
          '/v1/audience',
          '/api/audience/export.csv',
          `/v1/audience/${id}`,
        ]) {
          const response = await call(legend, 'GET', url);
          expect(response.statusCode).toBe(403);
          expect(response.json().error).toBe('feature_disabled');
        }
      });

      it('answers 401 without an organization', async () => {
        const response = await h.app.inject({ method: 'GET', url: '/v1/audience' });
        expect(response.statusCode).toBe(401);
      });

      it('exports the whole list oldest first with the spec columns, quoted and formula-neutralized', async () => {
        await addContact(store, legend.orgId, {
          email: 'b@example.com',
          createdAt: at(2),
          sourceSlug: '=HYPERLINK("http://evil")',
          country: 'FR',
          consentText: 'I agree, "gladly", to emails from +Org',
        });
        await addContact(store, legend.orgId, {
          email: 'a@example.com',
          createdAt: at(1),
          sourceSlug: 'promo',
        });
        await addContact(store, legend.orgId, {
          email: '@lead@example.com',
          createdAt: at(3),
          sourceSlug: '-1+2',
          consentText: '\tindented',
        });
        await addContact(store, legend.orgId, {
          email: 'c@example.com',
          createdAt: at(4),
          consentText: '\rcr',
        });
        await addContact(store, other.orgId, { email: 'not-ours@example.com', createdAt: at(0) });
        for (const url of ['/v1/audience/export.csv', '/api/audience/export.csv']) {
          const response = await call(legend, 'GET', url);
          expect(response.statusCode).toBe(200);
          expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
          expect(response.headers['content-disposition']).toContain('attachment');
          expect(response.body).toBe(
            [
              'email,source_slug,country,consent_text,captured_at',
              `a@example.com,promo,,I agree to receive emails from Org.,${at(1)}`,
              `b@example.com,"'=HYPERLINK(""http://evil"")",FR,"I agree, ""gladly"", to emails from +Org",${at(2)}`,
              `'@lead@example.com,'-1+2,,'\tindented,${at(3)}`,
              `c@example.com,,,"'\rcr",${at(4)}`,
              '',
            ].join('\r\n'),
          );
        }
      });
    },
  );
}
