import type { Tier } from '../../src/tenancy/plans.js';
import { audienceStore } from '../audience/setup.js';
import { type HostedHarness, onStore, startHosted } from '../helpers/hosted.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';
import { type SmtpSink, startSmtp } from './smtp.js';

export const BASE = 'https://lnk.example';
export const FROM = 'Acme News <news@acme.example>';

type Owner = Awaited<ReturnType<HostedHarness['owner']>>;

/**
 * Everything a broadcast suite needs: the hosted service through the composition root (startHosted) on a
 * store of its own, three organizations' owners (Legend "Acme", Hero, Sidekick) whose sessions make the
 * dashboard's /api calls, and a real SMTP server on loopback as SMTP_URL. The service's mail worker takes
 * batches of 3 and, unless `background`, sends only when a test drains it (`worker.drain()`), so a test
 * can change rows between queueing and sending. `mailConfigured: false` leaves SMTP_URL unset.
 */
export async function broadcastRig(
  kind: StoreKind,
  options: { mailConfigured?: boolean; background?: boolean } = {},
) {
  const testStore: TestStore = await audienceStore(kind);
  const store = testStore.store;
  const smtp: SmtpSink = await startSmtp();
  const env = {
    MAIL_FROM: FROM,
    ...(options.mailConfigured === false ? {} : { SMTP_URL: smtp.url }),
  };
  const mailWorker = { batchSize: 3, background: options.background === true };
  let h = await startHosted(onStore(kind, testStore), env, { mailWorker });
  const legend = await h.owner('legend', 'Acme');
  const hero = await h.owner('hero');
  const sidekick = await h.owner('sidekick');

  /** The dashboard's call, with the organization owner's session. */
  const call = (org: Owner, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    h.api(org.cookie, {
      method,
      url,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  return {
    testStore,
    store,
    smtp,
    legend,
    hero,
    sidekick,
    /** The hosted app now serving (another after `restart`). */
    get app() {
      return h.app;
    },
    /** The service's mail worker: `drain` sends every queued recipient now. */
    worker: { drain: () => h.drainMail() },
    call,
    /** Moves the organization to `tier` as the operator does (the accounts service's setTier). */
    setTier: (org: Owner, tier: Tier) => h.accounts.setTier(org.orgId, tier),
    /** The service restarted on the same store with more env (FLAGS_OFF): the same organizations, sessions, rows. */
    async restart(more: Record<string, string>) {
      await h.close();
      h = await startHosted(onStore(kind, testStore), { ...env, ...more }, { mailWorker });
    },
    async close() {
      await h.close();
      await smtp.close();
      await testStore.dispose();
    },
  };
}

export type BroadcastRig = Awaited<ReturnType<typeof broadcastRig>>;
