import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import { AppError, appError, featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { OrgContext } from '../tenancy/context.js';
import { featuresOf, isTier } from '../tenancy/plans.js';
import { createWebhookRepo, type FanOutTarget, type NewDeliveryRow, type WebhookRow } from './repo.js';
import {
  type CreatedWebhook,
  type CreateWebhookInput,
  MAX_WEBHOOKS_PER_ORG,
  type PatchWebhookInput,
  type Webhook,
  type WebhookEvent,
} from './schema.js';
import type { SecretBox } from './secret-box.js';

/** What the service and worker need of the guarded fetcher (src/net/guarded-fetch.ts), structurally. */
export interface WebhookFetcher {
  checkUrl(url: string): Promise<void>;
  request(
    url: string,
    init: {
      method: 'GET' | 'POST';
      headers?: Record<string, string>;
      body?: string;
      maxBytes?: number;
      timeoutMs?: number;
    },
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
}

export interface WebhookServiceDeps {
  store: Store;
  fetcher: Pick<WebhookFetcher, 'checkUrl'>;
  secretBox: SecretBox;
  now: () => Date;
  uuid: () => string;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=1: http and non-public targets are accepted (development only). */
  allowPrivate: boolean;
  /** The audit log: each change's row in its transaction; the signing secret is never in it. */
  audit?: AuditLog;
}

const SECRET_PREFIX = 'whsec_';
const SECRET_NOTE =
  'Store this signing secret now: it is shown only once and cannot be read again. Each delivery carries ' +
  'x-service-signature, the lowercase hex HMAC-SHA256 of the raw body keyed with this secret.';

// Sharper wording for the refusals a user can act on; other fetcher messages are shown as they are.
const REFUSALS: Record<string, string> = {
  scheme_not_allowed: 'Webhook URLs must use https://',
  address_not_allowed:
    'Webhook URLs must be publicly reachable: loopback, private and reserved addresses are refused',
  dns_failed: 'The webhook URL’s host name could not be resolved',
};

function isFetchRefusal(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function present(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    active: Number(row.active) === 1,
    failCount: Number(row.fail_count),
    lastDeliveredAt: row.last_delivered_at,
    createdAt: row.created_at,
  };
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const repo = createWebhookRepo(deps.store);
  const iso = () => deps.now().toISOString();

  const requireWebhooks = (ctx: OrgContext) => {
    if (!ctx.features.webhooks) throw featureError('webhooks');
  };

  /** The target rule of section 4.1, checked whenever a URL is saved (delivery checks it again). */
  async function assertTarget(url: string): Promise<void> {
    if (!deps.allowPrivate && !url.startsWith('https://')) {
      throw new AppError('invalid_webhook_url', 400, REFUSALS.scheme_not_allowed as string);
    }
    try {
      await deps.fetcher.checkUrl(url);
    } catch (error) {
      if (!isFetchRefusal(error)) throw error;
      const message = REFUSALS[error.code] ?? `The webhook URL was refused: ${error.message}`;
      throw new AppError('invalid_webhook_url', 400, message);
    }
  }

  async function find(ctx: OrgContext, id: string): Promise<WebhookRow> {
    const row = await repo.find(ctx.orgId, id);
    if (!row) throw appError('not_found', 'No such webhook');
    return row;
  }

  return {
    async create(ctx: OrgContext, input: CreateWebhookInput): Promise<CreatedWebhook> {
      requireWebhooks(ctx);
      await assertTarget(input.url);
      const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = deps.uuid();
      const row = {
        id,
        org_id: ctx.orgId,
        url: input.url,
        events: JSON.stringify(input.events),
        // Bound to the row id, so the ciphertext cannot be moved onto another subscription.
        secret_ciphertext: deps.secretBox.encrypt(secret, id),
        active: 1,
        fail_count: 0,
        last_delivered_at: null,
        created_at: iso(),
      };
      const inserted = await repo.transaction(async (trx) => {
        if (!(await repo.insertCapped(trx, row, MAX_WEBHOOKS_PER_ORG))) return false;
        await deps.audit?.record(trx, ctx, {
          action: 'webhook.created',
          target: { type: 'webhook', id },
          changes: changesBetween(null, { url: input.url, events: input.events }),
        });
        return true;
      });
      if (!inserted) {
        throw appError(
          'too_many_webhooks',
          `An organization can have at most ${MAX_WEBHOOKS_PER_ORG} webhooks`,
        );
      }
      return { ...present(row), secret, note: SECRET_NOTE };
    },

    /** Readable on every plan, so a downgraded organization can still see and remove its endpoints. */
    async list(ctx: OrgContext): Promise<Webhook[]> {
      return (await repo.list(ctx.orgId)).map(present);
    },

    /** Pausing alone (`{active: false}`) works on every plan, like DM rules; anything else needs webhooks. */
    async patch(ctx: OrgContext, id: string, input: PatchWebhookInput): Promise<Webhook> {
      const pauseOnly = input.active === false && input.url === undefined && input.events === undefined;
      if (!pauseOnly) requireWebhooks(ctx);
      const before = present(await find(ctx, id));
      if (input.url !== undefined) await assertTarget(input.url);
      const patch = {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
      };
      // An empty body changes nothing: no write, no audit row.
      if (Object.keys(patch).length > 0) {
        await repo.transaction(async (trx) => {
          await repo.update(trx, ctx.orgId, id, {
            ...(input.url !== undefined ? { url: input.url } : {}),
            ...(input.events !== undefined ? { events: JSON.stringify(input.events) } : {}),
            ...(input.active !== undefined ? { active: input.active ? 1 : 0 } : {}),
          });
          await deps.audit?.record(trx, ctx, {
            action: 'webhook.updated',
            target: { type: 'webhook', id },
            changes: changesBetween(before, { ...before, ...patch }, { only: Object.keys(patch) }),
          });
        });
      }
      return present(await find(ctx, id));
    },

    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      const removed = await repo.transaction(async (trx) => {
        if (!(await repo.remove(trx, ctx.orgId, id))) return false;
        await deps.audit?.record(trx, ctx, { action: 'webhook.deleted', target: { type: 'webhook', id } });
        return true;
      });
      if (!removed) throw appError('not_found', 'No such webhook');
      return { deleted: true };
    },

    /**
     * Queues `event` for every active subscription of the organization that includes it, in one
     * transaction; returns how many deliveries were queued. `data` is serialized here, once, so every
     * endpoint receives the same snapshot; the worker wraps it in the envelope with the delivery time.
     * An organization whose plan no longer includes webhooks queues nothing.
     */
    async emit(orgId: string, event: WebhookEvent, data: unknown): Promise<number> {
      return repo.fanOut(orgId, deliveriesOf(orgId, event, data));
    },

    /** As emit, inside the caller's transaction: the deliveries commit with the change that caused them. */
    async emitIn(
      trx: Transaction<Database>,
      orgId: string,
      event: WebhookEvent,
      data: unknown,
    ): Promise<number> {
      return repo.fanOutIn(trx, orgId, deliveriesOf(orgId, event, data));
    },
  };

  function deliveriesOf(orgId: string, event: WebhookEvent, data: unknown) {
    const payload = JSON.stringify(data ?? {});
    const createdAt = iso();
    return (targets: FanOutTarget[]): NewDeliveryRow[] =>
      targets
        .filter((target) => isTier(target.tier) && featuresOf(target.tier).webhooks)
        .filter((target) => (JSON.parse(target.events) as string[]).includes(event))
        .map((target) => ({
          id: deps.uuid(),
          webhook_id: target.id,
          org_id: orgId,
          event,
          payload,
          created_at: createdAt,
        }));
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/**
 * How a service emits events: `emitIn` writes the outbox rows inside the transaction of the change (so a
 * crash after the commit loses nothing), `nudge` wakes the delivery worker once that transaction has
 * committed (a missed nudge only waits for the worker's next poll).
 */
export interface EventOutbox {
  emitIn(trx: Transaction<Database>, orgId: string, event: WebhookEvent, data: unknown): Promise<number>;
  nudge(): void;
}
