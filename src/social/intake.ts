import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OrgContext } from '../tenancy/context.js';
import { featuresOf, type Tier } from '../tenancy/plans.js';
import { checkDmText } from './automations.js';
import { provisioned, type SocialDeps } from './deps.js';
import { ProviderError } from './provider.js';
import { classifyProviderError } from './provider-errors.js';
import { createSocialRepo } from './repo.js';
import { matchesText, type Trigger } from './trigger.js';

/**
 * Inbound provider deliveries (hosted-service.md 4.5, social-provider.md 3). The route checks the
 * signature over the raw bytes and answers 200 at once; the work happens here, afterwards. Comment and
 * message text is used for matching in memory only: it is never stored and never logged.
 */

export const MAX_DELIVERY_BYTES = 1_048_576;

/** Constant-time check of `X-Hub-Signature-256: sha256=<hex>` over the exact raw bytes. */
export function signatureValid(secret: string | undefined, raw: Buffer, header: string | undefined): boolean {
  if (!secret || typeof header !== 'string') return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match?.[1]) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

interface InboundEvent {
  accountUserId: string;
  kind: 'comment' | 'message';
  sourceId: string;
  /** The commenter or sender; a message is answered to them, a comment by its id. */
  fromId: string;
  mediaId: string | null;
  text: string;
}

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;
const obj = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** Defensive reading of the batch: anything malformed is dropped without a word. */
export function readEvents(payload: unknown): InboundEvent[] {
  const body = obj(payload);
  if (body.object !== 'instagram' || !Array.isArray(body.entry)) return [];
  const events: InboundEvent[] = [];
  for (const rawEntry of body.entry) {
    const entry = obj(rawEntry);
    const accountUserId = str(entry.id);
    if (!accountUserId) continue;
    const changes = Array.isArray(entry.changes) ? entry.changes : entry.field ? [entry] : [];
    for (const rawChange of changes) {
      const change = obj(rawChange);
      if (change.field !== 'comments') continue;
      const value = obj(change.value);
      const from = obj(value.from);
      const sourceId = str(value.id) ?? str(value.comment_id);
      const fromId = str(from.id);
      // Our own replies come back as comments: answering them would loop.
      if (!sourceId || !fromId || fromId === accountUserId || from.self_ig_scoped_id !== undefined) continue;
      const text = typeof value.text === 'string' ? value.text : '';
      events.push({
        accountUserId,
        kind: 'comment',
        sourceId,
        fromId,
        mediaId: str(obj(value.media).id),
        text,
      });
    }
    for (const rawItem of Array.isArray(entry.messaging) ? entry.messaging : []) {
      const item = obj(rawItem);
      const message = obj(item.message);
      const sourceId = str(message.mid);
      const fromId = str(obj(item.sender).id);
      if (!sourceId || !fromId || fromId === accountUserId) continue;
      if (message.is_echo === true || message.is_deleted === true || message.is_self === true) continue;
      const text = typeof message.text === 'string' ? message.text : '';
      events.push({ accountUserId, kind: 'message', sourceId, fromId, mediaId: null, text });
    }
  }
  return events;
}

function ruleMatches(trigger: Trigger, event: InboundEvent): boolean {
  if (trigger.type !== event.kind) return false;
  if (trigger.type === 'comment' && trigger.mediaId !== null && trigger.mediaId !== event.mediaId)
    return false;
  return matchesText(trigger, event.text);
}

export function createSocialIntake(deps: SocialDeps) {
  const repo = createSocialRepo(deps.store);
  const pending = new Set<Promise<void>>();
  const iso = () => deps.now().toISOString();

  async function finish(
    firingId: string,
    fields: {
      status: 'sent' | 'failed' | 'skipped';
      error?: string | null;
      reason?: string | null;
      recipient_id?: string | null;
    },
  ) {
    await repo.updateFiring(firingId, { error: null, reason: null, ...fields, updated_at: iso() });
  }

  async function handle(event: InboundEvent): Promise<void> {
    const account = await repo.activeAccountOf(event.accountUserId);
    if (!account) return;
    const org = await repo.organizationTier(account.org_id);
    if (!org) return;
    const ctx: OrgContext = { orgId: org.id, tier: org.tier as Tier, features: featuresOf(org.tier as Tier) };
    // A downgraded organization's rules never fire, nor do any while the flag is off.
    if (!ctx.features.dmAutomations || deps.flagsOff.has('dmAutomations')) return;
    const rules = await repo.enabledRulesOf(account.id);
    const rule = rules.find((row) => ruleMatches(JSON.parse(row.trigger) as Trigger, event));
    if (!rule) return;

    // Reserve (rule, source) before calling the provider: the unique key makes a redelivery, on any
    // instance and after any restart, a no-op, and an ambiguous send is never repeated.
    const firingId = deps.uuid();
    const reserved = await repo.reserveFiring({
      id: firingId,
      automation_id: rule.id,
      org_id: ctx.orgId,
      source_id: event.sourceId,
      status: 'queued',
      error: null,
      reason: null,
      recipient_id: null,
      created_at: iso(),
      updated_at: iso(),
    });
    if (!reserved) return;

    let dmText: string;
    try {
      dmText = checkDmText(rule.dm_text);
    } catch {
      return finish(firingId, {
        status: 'failed',
        error: 'raw_link_in_dm_text',
        reason: 'The DM text contains a link; edit the automation.',
      });
    }
    let shortUrl: string;
    try {
      shortUrl = (await deps.links.get(ctx, rule.link_id)).shortUrl;
    } catch {
      return finish(firingId, {
        status: 'skipped',
        error: 'link_unavailable',
        reason: 'The automation’s link is no longer available.',
      });
    }
    const ready = provisioned(deps);
    if (!ready) return finish(firingId, { status: 'skipped', error: 'not_provisioned', reason: null });
    let token: string;
    try {
      token = ready.vault.open(account.token_ciphertext, account.id);
    } catch {
      return finish(firingId, {
        status: 'failed',
        error: 'token_invalid',
        reason: 'We could not use your Instagram connection. Please reconnect.',
      });
    }
    const to = event.kind === 'comment' ? { commentId: event.sourceId } : { recipientId: event.fromId };
    try {
      const sent = await ready.provider.sendMessage(
        token,
        account.provider_user_id,
        to,
        `${dmText} ${shortUrl}`,
      );
      await finish(firingId, { status: 'sent', recipient_id: sent.recipientId ?? event.fromId });
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      const classified = classifyProviderError(error.code, error.subcode);
      await finish(firingId, { status: 'failed', error: classified.error, reason: classified.reason });
      if (classified.reconnect) {
        await repo.updateActiveAccount(account.id, {
          status: 'needs_reconnect',
          status_message: classified.reason,
          updated_at: iso(),
        });
      }
    }
  }

  async function process(raw: Buffer): Promise<void> {
    let payload: unknown;
    try {
      payload = JSON.parse(raw.toString('utf8'));
    } catch {
      return;
    }
    for (const event of readEvents(payload)) {
      try {
        await handle(event);
      } catch (error) {
        // Ids only: the event's text never reaches a log line.
        deps.logger?.error({ err: error, sourceId: event.sourceId }, 'social event not processed');
      }
    }
  }

  return {
    /** Schedules the work after the 200 has been sent. */
    accept(raw: Buffer): void {
      const work = new Promise<void>((resolve) => setImmediate(resolve)).then(() => process(raw));
      pending.add(work);
      void work.finally(() => pending.delete(work));
    },
    /** Resolves when every accepted delivery is processed (tests, graceful shutdown). */
    async drain(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    process,
  };
}

export type SocialIntake = ReturnType<typeof createSocialIntake>;
