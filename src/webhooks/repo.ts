import type { ExpressionBuilder, Insertable, Kysely, Selectable, Transaction } from 'kysely';
import { lockOrganizationRow, type Store, unitOfWork } from '../store/database.js';
import type { DeliveryStatus, WebhookDeliveryTable, WebhookTable } from '../store/migrations/006-webhooks.js';
import type { Database } from '../store/schema.js';

/** The only SQL of the webhooks domain: subscriptions (org-scoped) and the delivery outbox. */

type WebhookDb = Database & { webhooks: WebhookTable; webhook_deliveries: WebhookDeliveryTable };
export type WebhookRow = Selectable<WebhookTable>;
export type NewWebhookRow = Insertable<WebhookTable>;
export type NewDeliveryRow = Insertable<WebhookDeliveryTable>;

/** An active subscription of the emitting organization, with that organization's tier. */
export interface FanOutTarget {
  id: string;
  events: string;
  tier: string;
}

/** A claimed delivery with what sending it needs from its subscription, read after the claim. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  event: string;
  payload: string;
  url: string;
  events: string;
  active: boolean;
  secretCiphertext: string;
}

export type DeliveryOutcome = Exclude<DeliveryStatus, 'pending'>;

export function createWebhookRepo(store: Store) {
  // The tables live in migration 006; the cast stands until schema.ts's Database lists them.
  const db = store.db as unknown as Kysely<WebhookDb>;

  // A row is claimable when pending, never attempted, and not held by a live claim of another pass.
  const claimable = (now: string) => (eb: ExpressionBuilder<WebhookDb, 'webhook_deliveries'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb('attempted_at', 'is', null),
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]),
    ]);

  /**
   * The fan-out inside a transaction the caller owns (the change that causes the event): the outbox rows
   * commit or roll back with that change.
   */
  async function fanOutIn(
    transaction: Transaction<Database>,
    orgId: string,
    pick: (targets: FanOutTarget[]) => NewDeliveryRow[],
  ): Promise<number> {
    const trx = transaction as unknown as Transaction<WebhookDb>;
    const targets = await trx
      .selectFrom('webhooks')
      .innerJoin('organizations', 'organizations.id', 'webhooks.org_id')
      .select(['webhooks.id', 'webhooks.events', 'organizations.tier'])
      .where('webhooks.org_id', '=', orgId)
      .where('webhooks.active', '=', 1)
      .execute();
    const rows = pick(targets);
    if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
    return rows.length;
  }

  return {
    async list(orgId: string): Promise<WebhookRow[]> {
      return db
        .selectFrom('webhooks')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },

    async find(orgId: string, id: string): Promise<WebhookRow | undefined> {
      return db
        .selectFrom('webhooks')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** A webhook write's unit of work, opened by the service: the write and its audit row. */
    transaction: unitOfWork(store.db),

    /** Inserts, in the caller's transaction, unless the organization already has `max`; false at the cap. */
    async insertCapped(
      transaction: Transaction<Database>,
      row: NewWebhookRow,
      max: number,
    ): Promise<boolean> {
      const trx = transaction as unknown as Transaction<WebhookDb>;
      // Two concurrent creates would both count 4: the organization's lock makes them take turns.
      await lockOrganizationRow(store, transaction, row.org_id);
      const { count } = await trx
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('org_id', '=', row.org_id)
        .executeTakeFirstOrThrow();
      if (Number(count) >= max) return false;
      await trx.insertInto('webhooks').values(row).execute();
      return true;
    },

    async update(
      transaction: Transaction<Database>,
      orgId: string,
      id: string,
      patch: Partial<Pick<WebhookRow, 'url' | 'events' | 'active'>>,
    ): Promise<void> {
      const trx = transaction as unknown as Transaction<WebhookDb>;
      await trx.updateTable('webhooks').set(patch).where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    /** Deletes the subscription in the caller's transaction; its outbox rows go with it by cascade. */
    async remove(transaction: Transaction<Database>, orgId: string, id: string): Promise<boolean> {
      const trx = transaction as unknown as Transaction<WebhookDb>;
      const result = await trx
        .deleteFrom('webhooks')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** One transaction: reads the organization's active subscriptions, inserts the rows `pick` makes. */
    async fanOut(orgId: string, pick: (targets: FanOutTarget[]) => NewDeliveryRow[]): Promise<number> {
      return db.transaction().execute((trx) => fanOutIn(trx, orgId, pick));
    },

    fanOutIn,
    /**
     * Claims up to `limit` claimable rows for `token` in one UPDATE, then reads back what it got. The
     * condition is repeated outside the subquery so that, when two instances pick the same ids, the
     * second UPDATE re-checks each row after the first commits (PostgreSQL) or runs after it (SQLite's
     * single writer) and skips it: a row is claimed by exactly one pass.
     */
    async claim(token: string, now: string, until: string, limit: number): Promise<ClaimedDelivery[]> {
      await db
        .updateTable('webhook_deliveries')
        .set({ claim_token: token, claimed_until: until })
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where(claimable(now))
            .orderBy('created_at', 'asc')
            .limit(limit),
        )
        .where(claimable(now))
        .execute();
      const rows = await db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .select(['d.id', 'd.webhook_id', 'd.event', 'd.payload', 'w.url', 'w.events', 'w.active'])
        .select('w.secret_ciphertext')
        .where('d.claim_token', '=', token)
        .where('d.status', '=', 'pending')
        .orderBy('d.created_at', 'asc')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        webhookId: row.webhook_id,
        event: row.event,
        payload: row.payload,
        url: row.url,
        events: row.events,
        active: Number(row.active) === 1,
        secretCiphertext: row.secret_ciphertext,
      }));
    },

    /** Stamps the rows about to be sent: from here on they are never claimed again. */
    async markAttempted(token: string, ids: string[], now: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_deliveries')
        .set({ attempted_at: now })
        .where('claim_token', '=', token)
        .where('id', 'in', ids)
        .execute();
    },

    /** Records the outcome and, for a send, the subscription's counters, in one transaction. */
    async finish(
      delivery: { id: string; webhookId: string },
      token: string,
      outcome: DeliveryOutcome,
      now: string,
      responseStatus: number | null,
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('webhook_deliveries')
          .set({ status: outcome, response_status: responseStatus })
          .where('id', '=', delivery.id)
          .where('claim_token', '=', token)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        // Someone else settled the row (a stale-claim sweep): its counters are not ours to move.
        if (Number(result.numUpdatedRows) === 0 || outcome === 'skipped') return;
        const webhook = trx.updateTable('webhooks').where('id', '=', delivery.webhookId);
        if (outcome === 'delivered') await webhook.set({ fail_count: 0, last_delivered_at: now }).execute();
        else await webhook.set((eb) => ({ fail_count: eb('fail_count', '+', 1) })).execute();
      });
    },

    /**
     * Rows whose pass died after stamping them and whose claim has run out: the outcome is unknown and
     * the spec allows a single attempt, so they end as failed without touching failCount.
     */
    async abandonStale(now: string): Promise<number> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed' })
        .where('status', '=', 'pending')
        .where('attempted_at', 'is not', null)
        .where('claimed_until', '<', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Drops settled rows older than `before`: the outbox is a queue, not an archive. */
    async prune(before: string): Promise<number> {
      const result = await db
        .deleteFrom('webhook_deliveries')
        .where('status', '<>', 'pending')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Deliveries still to be sent (the outbox's depth, for /metrics). */
    async countPending(): Promise<number> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('pending'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(row.pending);
    },
  };
}

export type WebhookRepo = ReturnType<typeof createWebhookRepo>;
