import { createHmac, randomUUID } from 'node:crypto';
import { createPollingLoop } from '../jobs/polling-loop.js';
import type { Store } from '../store/database.js';
import { type ClaimedDelivery, createWebhookRepo } from './repo.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookFetcher } from './service.js';

/**
 * Sends the webhook outbox. Any number of instances may run one: rows are claimed atomically, each row is
 * POSTed at most once (5 s timeout, no retries, as section 6 says), and the outcome moves the endpoint's
 * failCount / lastDeliveredAt. Rows are durable, so stopping mid-queue loses nothing: the next pass, here
 * or on another instance, picks them up.
 */

export interface DeliveryLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface DeliveryWorkerDeps {
  store: Store;
  fetcher: Pick<WebhookFetcher, 'request'>;
  secretBox: SecretBox;
  now: () => Date;
  logger: DeliveryLogger;
  /** Poll period: how soon rows queued by another instance (or missed nudges) are sent. */
  intervalMs?: number;
  batchSize?: number;
  /** Per-delivery time cap; the spec's 5 seconds unless a test wants it shorter. */
  timeoutMs?: number;
}

const DEFAULT_INTERVAL_MS = 2_000;
const DEFAULT_BATCH_SIZE = 20;
const DEFAULT_TIMEOUT_MS = 5_000;
// Comfortably longer than one batch takes (every send is capped by the timeout), so a live pass never
// loses its rows to another instance.
const CLAIM_MS = 30_000;
// The receiver's answer is ignored, but the fetcher reads it whole (so the connection can be reused) and
// fails a larger one even on a 2xx: generous for an acknowledgement page, small enough for a batch.
const RESPONSE_MAX_BYTES = 256 * 1024;
const RETENTION_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/** The envelope `{event, ts, data}` as the exact bytes that are signed and sent. */
export function envelope(event: string, ts: string, dataJson: string): string {
  return `{"event":${JSON.stringify(event)},"ts":${JSON.stringify(ts)},"data":${dataJson}}`;
}

export function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const repo = createWebhookRepo(deps.store);
  const batchSize = deps.batchSize ?? DEFAULT_BATCH_SIZE;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = deps.intervalMs ?? DEFAULT_INTERVAL_MS;
  const iso = (offsetMs = 0) => new Date(deps.now().getTime() + offsetMs).toISOString();

  let lastPrune = 0;

  /** Null when the box cannot be opened: our fault (a master secret rotated away), so logged loudly. */
  function openSecret(row: ClaimedDelivery): string | null {
    try {
      return deps.secretBox.decrypt(row.secretCiphertext, row.webhookId);
    } catch (error) {
      deps.logger.error(
        { err: error, webhookId: row.webhookId },
        'webhook signing secret cannot be decrypted; was the master secret replaced without keeping it as previous?',
      );
      return null;
    }
  }

  /** One POST; any failure (non-2xx, timeout, refused address, network) is the outcome `failed`. */
  async function post(row: ClaimedDelivery, secret: string): Promise<{ ok: boolean; status: number | null }> {
    const body = envelope(row.event, iso(), row.payload);
    try {
      const response = await deps.fetcher.request(row.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-event': row.event,
          'x-service-signature': sign(secret, body),
        },
        body,
        timeoutMs,
        maxBytes: RESPONSE_MAX_BYTES,
      });
      return { ok: response.status >= 200 && response.status < 300, status: response.status };
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      deps.logger.warn({ deliveryId: row.id, webhookId: row.webhookId, code }, 'webhook delivery failed');
      return { ok: false, status: null };
    }
  }

  async function send(row: ClaimedDelivery, token: string): Promise<void> {
    const subscribed = (JSON.parse(row.events) as string[]).includes(row.event);
    // Paused (or unsubscribed) since the row was queued: the endpoint receives nothing.
    if (!row.active || !subscribed) return repo.finish(row, token, 'skipped', iso(), null);
    const secret = openSecret(row);
    const result = secret === null ? { ok: false, status: null } : await post(row, secret);
    await repo.finish(row, token, result.ok ? 'delivered' : 'failed', iso(), result.status);
  }

  /** One claim-and-send round; returns how many rows it claimed. */
  async function pass(): Promise<number> {
    if (deps.now().getTime() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = deps.now().getTime();
      await repo.abandonStale(iso());
      await repo.prune(iso(-RETENTION_MS));
    }
    const token = randomUUID();
    const rows = await repo.claim(token, iso(), iso(CLAIM_MS), batchSize);
    if (rows.length === 0) return 0;
    await repo.markAttempted(
      token,
      rows.map((row) => row.id),
      iso(),
    );
    // In parallel: one slow receiver costs the batch at most the timeout, not timeout x rows.
    await Promise.all(
      rows.map((row) =>
        send(row, token).catch((error: unknown) =>
          deps.logger.error({ err: error, deliveryId: row.id }, 'webhook delivery bookkeeping failed'),
        ),
      ),
    );
    return rows.length;
  }

  const loop = createPollingLoop({
    pass,
    batchSize,
    intervalMs: intervalMs,
    onError: (error) => deps.logger.error({ err: error }, 'webhook delivery pass failed'),
  });

  return {
    start: loop.start,
    nudge: loop.nudge,
    /** Deliveries waiting in the outbox, on every instance together. */
    depth: () => repo.countPending(),
    drain: loop.drain,
    async stop(): Promise<void> {
      await loop.stop();
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
