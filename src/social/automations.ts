import type { Updateable } from 'kysely';
import { changesBetween } from '../audit/changes.js';
import { AppError, appError } from '../errors.js';
import type { Executor } from '../store/database.js';
import type { DmAutomationTable } from '../store/migrations/009-social.js';
import type { OrgContext } from '../tenancy/context.js';
import { notFound, requireWrite, type SocialDeps } from './deps.js';
import { findRawLink } from './link-detector.js';
import { createSocialRepo, type FiringRow, type RuleRow } from './repo.js';
import { cleanTrigger, type Trigger } from './trigger.js';

/** DM automation rules (hosted-service.md 4.5 "Automation rules") and their firing history. */

export const MAX_RULES_PER_ACCOUNT = 25;
export const EVENTS_LIMIT = 100;

export interface RuleInput {
  accountId?: string | undefined;
  linkId?: string | undefined;
  dmText?: string | undefined;
  trigger?: unknown;
  enabled?: boolean | undefined;
}

export interface Rule {
  id: string;
  accountId: string;
  linkId: string;
  dmText: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  trigger: Trigger;
}

export function presentRule(row: RuleRow): Rule {
  return {
    id: row.id,
    accountId: row.account_id,
    linkId: row.link_id,
    dmText: row.dm_text,
    enabled: Number(row.enabled) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    trigger: JSON.parse(row.trigger) as Trigger,
  };
}

export function presentFiring(row: FiringRow) {
  return {
    id: row.id,
    status: row.status,
    error: row.error,
    reason: row.reason,
    sourceId: row.source_id,
    createdAt: row.created_at,
  };
}

/** Rule 2, shared with the sender: a DM text refused here is refused again when sending. */
export function checkDmText(dmText: string | undefined): string {
  const text = dmText?.trim();
  if (!text) throw new AppError('missing_dm_text', 400, 'dmText is required');
  const offending = findRawLink(text);
  if (offending) {
    throw new AppError(
      'raw_link_in_dm_text',
      400,
      'dmText must not contain a link: the DM carries the rule’s link',
      {
        offending,
      },
    );
  }
  return text;
}

/** The rule fields an audit row compares. */
const AUDITED = { only: ['accountId', 'linkId', 'dmText', 'enabled', 'trigger'] };

export function createAutomationService(deps: SocialDeps) {
  const repo = createSocialRepo(deps.store);
  const audited = async (
    trx: Executor,
    ctx: OrgContext,
    action: string,
    id: string,
    changes: Record<string, unknown>,
  ) => {
    const target = { type: 'automation', id };
    await deps.audit?.record(trx, ctx, { action, target, changes });
  };

  const find = async (ctx: OrgContext, id: string) => {
    const row = await repo.ruleOf(ctx.orgId, id);
    if (!row) throw notFound('automation');
    return row;
  };
  const checkAccount = async (ctx: OrgContext, accountId: string | undefined) => {
    const account = accountId ? await repo.accountStatus(accountId, ctx.orgId) : undefined;
    if (!account || account.status === 'revoked') {
      throw new AppError('unknown_account', 400, 'accountId is not a connected account of this organization');
    }
    return account.id;
  };
  const checkLink = async (ctx: OrgContext, linkId: string) => {
    try {
      await deps.links.get(ctx, linkId);
    } catch {
      throw appError('unknown_link', 'linkId is not a link of this organization');
    }
  };
  const checkRoom = async (accountId: string, exceptId?: string) => {
    if ((await repo.countRules(accountId, exceptId)) >= MAX_RULES_PER_ACCOUNT) {
      throw new AppError('too_many_automations', 400, `At most ${MAX_RULES_PER_ACCOUNT} rules per account`);
    }
  };

  return {
    async create(ctx: OrgContext, input: RuleInput): Promise<Rule> {
      requireWrite(deps, ctx);
      const trigger = cleanTrigger(input.trigger);
      const dmText = checkDmText(input.dmText);
      const accountId = await checkAccount(ctx, input.accountId);
      if (!input.linkId) throw appError('unknown_link', 'linkId is required');
      await checkLink(ctx, input.linkId);
      await checkRoom(accountId);
      const iso = deps.now().toISOString();
      const row: RuleRow = {
        id: deps.uuid(),
        org_id: ctx.orgId,
        account_id: accountId,
        link_id: input.linkId,
        dm_text: dmText,
        trigger: JSON.stringify(trigger),
        enabled: input.enabled === false ? 0 : 1,
        created_at: iso,
        updated_at: iso,
      };
      await repo.transaction(async (trx) => {
        await repo.insertRule(row, trx);
        await audited(
          trx,
          ctx,
          'automation.created',
          row.id,
          changesBetween(null, presentRule(row), AUDITED),
        );
      });
      return presentRule(row);
    },

    /** Oldest first: the order in which rules compete for a comment's single private reply. */
    async list(ctx: OrgContext): Promise<Rule[]> {
      const rows = await repo.rulesOf(ctx.orgId);
      return rows.map(presentRule);
    },

    /** A body of exactly `{enabled: false}` pauses on any tier; anything else needs the flag and legend. */
    async update(ctx: OrgContext, id: string, input: RuleInput): Promise<Rule> {
      const current = await find(ctx, id);
      const keys = Object.keys(input).filter((key) => input[key as keyof RuleInput] !== undefined);
      const pauseOnly = keys.length === 1 && input.enabled === false;
      const changes: Updateable<DmAutomationTable> = { updated_at: deps.now().toISOString() };
      if (pauseOnly) {
        changes.enabled = 0;
      } else {
        requireWrite(deps, ctx);
        if (input.trigger !== undefined) changes.trigger = JSON.stringify(cleanTrigger(input.trigger));
        if (input.dmText !== undefined) changes.dm_text = checkDmText(input.dmText);
        if (input.accountId !== undefined && input.accountId !== current.account_id) {
          changes.account_id = await checkAccount(ctx, input.accountId);
          await checkRoom(changes.account_id, id);
        }
        if (input.linkId !== undefined) {
          await checkLink(ctx, input.linkId);
          changes.link_id = input.linkId;
        }
        if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      }
      const next = presentRule({ ...current, ...changes } as RuleRow);
      await repo.transaction(async (trx) => {
        await repo.updateRule(id, changes, trx);
        await audited(
          trx,
          ctx,
          'automation.updated',
          id,
          changesBetween(presentRule(current), next, AUDITED),
        );
      });
      return next;
    },

    /** Any tier. The history goes with the rule; the link is never touched, so it keeps redirecting. */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      await find(ctx, id);
      await repo.transaction(async (trx) => {
        await repo.deleteRule(ctx.orgId, id, trx);
        await audited(trx, ctx, 'automation.deleted', id, {});
      });
      return { deleted: true };
    },

    async events(ctx: OrgContext, id: string) {
      await find(ctx, id);
      const rows = await repo.recentFirings(id, EVENTS_LIMIT);
      return rows.map(presentFiring);
    },

    async stats(ctx: OrgContext, id: string) {
      const rule = await find(ctx, id);
      const since = new Date(deps.now().getTime() - 90 * 86_400_000).toISOString();
      const rows = await repo.firingCounts(id, since);
      const count = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
      const recipients = Number(rows.find((row) => row.status === 'sent')?.recipients ?? 0);
      let link: { shortUrl: string; clicks: number; opened: number; appOpenRate: number | null } | null =
        null;
      try {
        const { shortUrl } = await deps.links.get(ctx, rule.link_id);
        const numbers = deps.linkStats ? await deps.linkStats(ctx, rule.link_id) : null;
        if (numbers) link = { shortUrl, ...numbers };
      } catch {
        link = null;
      }
      // `skipped` includes rows still queued, as the spec says.
      return {
        sent: count('sent'),
        failed: count('failed'),
        skipped: count('skipped') + count('queued'),
        recipients,
        link,
      };
    },
  };
}

export type AutomationService = ReturnType<typeof createAutomationService>;
