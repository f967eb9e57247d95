import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createAudienceService } from '../../src/audience/service.js';
import { broadcastRoutes } from '../../src/broadcasts/routes.js';
import { createSegmentService, segmentRoutes } from '../../src/broadcasts/segments.js';
import { createBroadcastService } from '../../src/broadcasts/service.js';
import { createUnsubscribeService, unsubscribeRoutes } from '../../src/broadcasts/unsubscribe.js';
import { createBroadcastWorker } from '../../src/broadcasts/worker.js';
import { createSmtpTransport } from '../../src/net/mail.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { audienceStore, buildApp } from '../audience/setup.js';
import { makeOrg } from '../helpers/org.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';
import { type SmtpSink, startSmtp } from './smtp.js';

export const BASE = 'https://lnk.example';
export const FROM = 'Acme News <news@acme.example>';
const silent = { warn() {}, error() {} };

/** Everything a broadcast suite needs: a store, three tiers, the services, the worker, SMTP, an app. */
export async function broadcastRig(
  kind: StoreKind,
  options: { mailConfigured?: boolean; background?: boolean } = {},
) {
  const testStore: TestStore = await audienceStore(kind);
  const store = testStore.store;
  const smtp: SmtpSink = await startSmtp();
  const flagsOff = new Set<string>();
  const orgs = new Map<string, OrgContext>();
  const legend = await makeOrg(store, 'legend', { name: 'Acme' });
  const hero = await makeOrg(store, 'hero');
  const sidekick = await makeOrg(store, 'sidekick');
  for (const org of [legend, hero, sidekick]) orgs.set(org.orgId, org);
  const deps = { store, now: () => new Date(), uuid: randomUUID, flagsOff };
  const segments = createSegmentService(deps);
  const worker = createBroadcastWorker({
    store,
    transport: createSmtpTransport(smtp.url),
    from: FROM,
    baseUrl: BASE,
    now: () => new Date(),
    logger: silent,
    batchSize: 3,
  });
  const broadcasts = createBroadcastService({
    ...deps,
    segments,
    mailConfigured: options.mailConfigured ?? true,
    // In the background like production, or only when a test drains the worker.
    nudge: () => {
      if (options.background) worker.nudge();
    },
  });
  const audience = createAudienceService({ ...deps, events: { emitIn: async () => 0, nudge: () => {} } });
  const unsubscribe = createUnsubscribeService({ store, now: () => new Date() });
  const app: FastifyInstance = await buildApp(orgs, async (a) => {
    await a.register(
      async (api) => {
        await api.register(segmentRoutes, { segments });
        await api.register(broadcastRoutes, { broadcasts });
      },
      { prefix: '/api' },
    );
    await a.register(unsubscribeRoutes, { unsubscribe });
  });
  const call = (
    org: OrgContext,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) =>
    app.inject({
      method,
      url,
      headers: { 'x-test-org': org.orgId },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  return {
    testStore,
    store,
    smtp,
    flagsOff,
    orgs,
    legend,
    hero,
    sidekick,
    segments,
    broadcasts,
    audience,
    worker,
    app,
    call,
    async close() {
      await worker.stop();
      await app.close();
      await smtp.close();
      await testStore.dispose();
    },
  };
}

export type BroadcastRig = Awaited<ReturnType<typeof broadcastRig>>;
