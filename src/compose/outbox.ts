import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import type { Store } from '../store/database.js';
import type { WebhookEvent } from '../webhooks/schema.js';
import { createWebhookService, type EventOutbox } from '../webhooks/service.js';
import { createDeliveryWorker } from '../webhooks/worker.js';
import type { Shared } from './shared.js';

/**
 * What a change leaves behind besides itself: its audit row and its webhook events, both written in the
 * change's own transaction (the outbox), and the worker that delivers the events.
 */
export function composeOutbox(config: Config, store: Store, logger: Logger, shared: Shared) {
  const { now } = shared;
  const audit = createAuditLog({ repo: createAuditRepo(store), now });
  const webhooks = createWebhookService({
    store,
    fetcher: shared.fetcher,
    secretBox: shared.secretBox,
    now,
    uuid: randomUUID,
    allowPrivate: config.allowPrivateWebhookTargets,
    audit,
  });
  const deliveries = createDeliveryWorker({
    store,
    fetcher: shared.fetcher,
    secretBox: shared.secretBox,
    now,
    logger,
  });
  // Link and contact events are queued in the transaction of their change.
  const events: EventOutbox = { emitIn: webhooks.emitIn, nudge: () => deliveries.nudge() };
  // The app.* outcome events still queue after their write; a webhook problem never fails that call.
  const emitEvent = async (orgId: string, event: WebhookEvent, data: unknown): Promise<void> => {
    try {
      if ((await webhooks.emit(orgId, event, data)) > 0) deliveries.nudge();
    } catch (error) {
      logger.error({ err: error, event }, 'webhook event not queued');
    }
  };
  return { audit, webhooks, deliveries, events, emitEvent };
}

export type Outbox = ReturnType<typeof composeOutbox>;
