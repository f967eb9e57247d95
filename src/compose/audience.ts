import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createAudienceService } from '../audience/service.js';
import type { AuditLog } from '../audit/service.js';
import { createSegmentService } from '../broadcasts/segments.js';
import { createBroadcastService } from '../broadcasts/service.js';
import { createUnsubscribeService } from '../broadcasts/unsubscribe.js';
import { createBroadcastWorker } from '../broadcasts/worker.js';
import type { Config } from '../config.js';
import type { MailTransport } from '../net/mail.js';
import type { Store } from '../store/database.js';
import type { EventOutbox } from '../webhooks/service.js';

export interface AudienceDeps {
  config: Config;
  store: Store;
  logger: Logger;
  events: EventOutbox;
  audit: AuditLog;
  /** SMTP_URL's transport (null without it): without it there is no worker and sending answers 503. */
  mailTransport: MailTransport | null;
  mailFrom: string;
  /** The service's clock. */
  now: () => Date;
  /** The mail worker as a test runs it (ComposeOptions.mailWorker). */
  mailWorker?: MailWorkerOptions | undefined;
}

/**
 * Tests: `batchSize` rows a pass (20 by default, so a few contacts span passes), and `background: false`
 * to neither poll nor nudge: queued rows wait until the test drains them.
 */
export interface MailWorkerOptions {
  batchSize?: number;
  background?: boolean;
}

/** The audience side of the hosted service: contacts, segments, broadcasts and their mail worker. */
export function composeAudience(deps: AudienceDeps) {
  const { config, store, events, audit, mailTransport, now } = deps;
  const background = deps.mailWorker?.background !== false;
  const audience = createAudienceService({
    store,
    now,
    uuid: randomUUID,
    flagsOff: config.flagsOff,
    events,
    audit,
  });
  const segments = createSegmentService({ store, now, uuid: randomUUID, flagsOff: config.flagsOff, audit });
  const worker = mailTransport
    ? createBroadcastWorker({
        store,
        transport: mailTransport,
        from: deps.mailFrom,
        baseUrl: config.baseUrl,
        now,
        logger: deps.logger,
        ...(deps.mailWorker?.batchSize ? { batchSize: deps.mailWorker.batchSize } : {}),
      })
    : undefined;
  const broadcasts = createBroadcastService({
    store,
    segments,
    now,
    uuid: randomUUID,
    flagsOff: config.flagsOff,
    mailConfigured: worker !== undefined,
    nudge: () => {
      if (background) worker?.nudge();
    },
    audit,
  });
  const unsubscribe = createUnsubscribeService({ store, now });
  return {
    audience,
    segments,
    broadcasts,
    unsubscribe,
    start: () => {
      if (background) worker?.start();
    },
    /** Sends every queued row now and resolves when none is left (tests). */
    drain: async () => worker?.drain(),
    stop: async () => worker?.stop(),
  };
}
