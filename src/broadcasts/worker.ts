import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createPollingLoop } from '../jobs/polling-loop.js';
import type { MailTransport } from '../net/mail.js';
import type { Store } from '../store/database.js';
import { composeMessage } from './message.js';
import { createBroadcastRepo } from './repo.js';

/**
 * Sends queued broadcast recipients over SMTP, one message per row. Any number of instances may run one:
 * rows move queued -> sending in one conditional UPDATE (a row is claimed by exactly one pass), and each is
 * mailed at most once; a row left `sending` by a crashed pass is failed as `interrupted`, never re-sent.
 * When a broadcast has no queued or sending rows left it becomes `sent`, or `failed` if nothing was sent
 * and something failed.
 */

export interface BroadcastWorkerDeps {
  store: Store;
  transport: MailTransport;
  /** MAIL_FROM. */
  from: string;
  /** BASE_URL: the unsubscribe link's origin. */
  baseUrl: string;
  now: () => Date;
  logger: { warn(details: object, message: string): void; error(details: object, message: string): void };
  intervalMs?: number;
  batchSize?: number;
}

const CLAIM_MS = 10 * 60_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function createBroadcastWorker(deps: BroadcastWorkerDeps) {
  const repo = createBroadcastRepo(deps.store);
  const batchSize = deps.batchSize ?? 20;
  const iso = (offsetMs = 0) => new Date(deps.now().getTime() + offsetMs).toISOString();

  const finish = (id: string, status: 'sent' | 'failed' | 'skipped', reason: string | null) =>
    repo.finishRecipient(id, status, reason, status === 'sent' ? iso() : null);

  async function deliver(row: {
    id: string;
    contact_id: string | null;
    email: string | null;
    consent_text: string | null;
    unsubscribed_at: string | null;
    subject: string;
    html: string;
    text: string | null;
  }): Promise<void> {
    if (row.contact_id === null || row.email === null)
      return void (await finish(row.id, 'skipped', 'contact_deleted'));
    if (row.unsubscribed_at !== null) return void (await finish(row.id, 'skipped', 'unsubscribed'));
    // Blank consent is a permanent send refusal.
    if ((row.consent_text ?? '').trim() === '') return void (await finish(row.id, 'skipped', 'no_consent'));
    // A fresh opaque token per message; only its hash is kept, on this row.
    const token = randomBytes(32).toString('base64url');
    await repo.setUnsubscribeHash(row.id, hashToken(token));
    const message = composeMessage({
      from: deps.from,
      to: row.email,
      subject: row.subject,
      html: row.html,
      text: row.text,
      unsubscribeUrl: `${deps.baseUrl}/u/${token}`,
    });
    try {
      await deps.transport.sendMail(message);
      await finish(row.id, 'sent', null);
    } catch (error) {
      const code = (error as { responseCode?: unknown; code?: unknown } | null) ?? {};
      deps.logger.warn(
        { recipientId: row.id, code: code.responseCode ?? code.code },
        'broadcast email failed',
      );
      await finish(
        row.id,
        'failed',
        typeof code.responseCode === 'number' ? `smtp_${code.responseCode}` : 'smtp_error',
      );
    }
  }

  /** Broadcasts with nothing left to do take their final status. */
  async function settle(): Promise<void> {
    const open = await repo.sendingIds();
    for (const { id } of open) {
      const rows = await repo.statusCounts(id);
      const n = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
      if (n('queued') + n('sending') > 0) continue;
      const status = n('sent') === 0 && n('failed') > 0 ? 'failed' : 'sent';
      await repo.settle(id, status, iso());
    }
  }

  async function pass(): Promise<number> {
    await repo.failInterrupted(iso());
    const token = randomUUID();
    await repo.claimQueued(token, iso(CLAIM_MS), batchSize);
    const rows = await repo.claimed(token);
    for (const row of rows) {
      await deliver(row).catch((error: unknown) =>
        deps.logger.error({ err: error, recipientId: row.id }, 'broadcast bookkeeping failed'),
      );
    }
    await settle();
    return rows.length;
  }

  const loop = createPollingLoop({
    pass,
    batchSize,
    intervalMs: deps.intervalMs ?? 5_000,
    onError: (error) => deps.logger.error({ err: error }, 'broadcast send pass failed'),
  });

  return {
    start: loop.start,
    nudge: loop.nudge,
    drain: loop.drain,
    async stop(): Promise<void> {
      await loop.stop();
      deps.transport.close?.();
    },
  };
}

export type BroadcastWorker = ReturnType<typeof createBroadcastWorker>;
