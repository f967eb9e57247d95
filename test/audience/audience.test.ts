import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { audienceRoutes } from '../../src/audience/routes.js';
import { createAudienceService } from '../../src/audience/service.js';
import type { Store } from '../../src/store/database.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { addContact, audienceStore, buildApp, makeLink } from './setup.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `audience list, detail, delete and export on ${kind.name}`,
    () => {
      let testStore: TestStore;
      let store: Store;
      let app: FastifyInstance;
      let legend: OrgContext;
      let other: OrgContext;
      let flagsOff: Set<string>;
      const orgs = new Map<string, OrgContext>();

      const call = (org: OrgContext, method: 'GET' | 'DELETE', url: string) =>
        app.inject({ method, url, headers: { 'x-test-org': org.orgId } });

      beforeEach(async () => {
        testStore = await audienceStore(kind);
        store = testStore.store;
        flagsOff = new Set();
        legend = await makeOrg(store, 'legend');
        other = await makeOrg(store, 'legend');
        for (const org of [legend, other]) orgs.set(org.orgId, org);
        const audience = createAudienceService({
          store,
          now: () => new Date(),
          uuid: randomUUID,
          flagsOff,
          events: { emitIn: async () => 0, nudge: () => {} },
        });
        app = await buildApp(orgs, async (a) => {
          await a.register(audienceRoutes, { audience, prefix: '/v1' });
          await a.register(audienceRoutes, { audience, dashboard: true, prefix: '/api' });
        });
      });
      afterEach(async () => {
        await app.close();
        await testStore.dispose();
      });

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
        const id = await addContact(store, legend.orgId, { email: 'gone@example.com', createdAt: at(1) });
        expect((await call(other, 'DELETE', `/v1/audience/${id}`)).statusCode).toBe(404);
        const sidekick = { ...legend, tier: 'sidekick' as const };
        orgs.set('downgraded', sidekick);
        flagsOff.add('audienceCapture');
        const deleted = await app.inject({
          method: 'DELETE',
          url: `/api/audience/${id}`,
          headers: { 'x-test-org': 'downgraded' },
        });
        expect(deleted.statusCode).toBe(200);
        expect(deleted.json()).toEqual({ deleted: true });
        const left = await audienceDb(store)
          .selectFrom('contacts')
          .select('id')
          .where('id', '=', id)
          .execute();
        expect(left).toEqual([]);
        expect((await call(legend, 'DELETE', `/v1/audience/${id}`)).statusCode).toBe(404);
      });

      it('answers 403 feature_disabled on the list, detail and export when the audienceCapture flag is off', async () => {
        const id = await addContact(store, legend.orgId, { email: 'x@example.com', createdAt: at(1) });
        flagsOff.add('audienceCapture');
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
        const response = await app.inject({ method: 'GET', url: '/v1/audience' });
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
