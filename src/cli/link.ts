import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { OPERATOR } from '../accounts/service.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditLog } from '../audit/service.js';
import { parseConfig } from '../config.js';
import { isWellFormedId } from '../http/edge-text.js';
import { plainValidationMessage, type ValidationIssue } from '../http/validation-messages.js';
import { createLinkBody, listQuery } from '../links/schema.js';
import type { LinkService } from '../links/service.js';
import { migrateToLatest, openStore, type Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { featuresOf } from '../tenancy/plans.js';
import { CliError, printJson } from './context.js';
import { openCliLinks } from './link-stack.js';

const USAGE = `usage: linkhop link create URL --org ORG_ID [--slug SLUG] [--hostname HOST] [--tags a,b]
                          [--folder FOLDER_ID] [--expires-at ISO --expired-url URL] [--max-clicks N]
                          [--public-stats]
       linkhop link list --org ORG_ID [--limit N] [--offset N] [--q TEXT] [--tag TAG] [--folder FOLDER_ID]
                          [--archived] [--expired true|false]
       linkhop link get LINK_ID --org ORG_ID
       linkhop link stats LINK_ID --org ORG_ID`;

/** A usage mistake, in one line; `linkhop link help` prints every flag. */
const SHORT_USAGE =
  'usage: linkhop link create URL | list | get LINK_ID | stats LINK_ID, each with --org ORG_ID (linkhop link help for every flag)';

const OPTIONS = {
  org: { type: 'string' },
  slug: { type: 'string' },
  hostname: { type: 'string' },
  tags: { type: 'string' },
  folder: { type: 'string' },
  'expires-at': { type: 'string' },
  'expired-url': { type: 'string' },
  'max-clicks': { type: 'string' },
  'public-stats': { type: 'boolean' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  q: { type: 'string' },
  tag: { type: 'string' },
  archived: { type: 'boolean' },
  expired: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** The API's own schema decides, and its plain message is the one line the CLI prints. */
function validated<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new CliError(plainValidationMessage(parsed.error.issues as ValidationIssue[]));
  return parsed.data;
}

/** `--max-clicks 10` as the API's number; anything else is left for the schema to refuse in its words. */
const numberOr = (value: string) => (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value);

/** The create body from flags: only what was given, in the API's field names. */
function createInput(url: string, values: Values) {
  const body: Record<string, unknown> = { url };
  if (values.slug !== undefined) body.slug = values.slug;
  if (values.hostname !== undefined) body.hostname = values.hostname;
  if (values.tags !== undefined)
    body.tags = values.tags
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
  if (values.folder !== undefined) body.folderId = values.folder;
  if (values['expires-at'] !== undefined) body.expiresAt = values['expires-at'];
  if (values['expired-url'] !== undefined) body.expiredUrl = values['expired-url'];
  if (values['max-clicks'] !== undefined) body.maxClicks = numberOr(values['max-clicks']);
  if (values['public-stats']) body.publicStats = true;
  return validated(createLinkBody, body);
}

/** The list query from flags, as `GET /v1/links` reads its query string. */
function listInput(values: Values) {
  const query: Record<string, string> = {};
  if (values.limit !== undefined) query.limit = values.limit;
  if (values.offset !== undefined) query.offset = values.offset;
  if (values.q !== undefined) query.q = values.q;
  if (values.tag !== undefined) query.tag = values.tag;
  if (values.folder !== undefined) query.folderId = values.folder;
  if (values.archived) query.archived = 'true';
  if (values.expired !== undefined) query.expired = values.expired;
  return validated(listQuery, query);
}

interface LinkCommandServices {
  ctx: OrgContext;
  links: LinkService;
  store: Store;
  analytics: boolean;
}

/** Opens the store (migrated), the organization's context as the operator, the links service; closes after. */
async function withLinks<T>(orgId: string, run: (services: LinkCommandServices) => Promise<T>): Promise<T> {
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store);
    const now = () => new Date();
    // What the operator does is in the organization's audit log, as the operator's.
    const audit = createAuditLog({ repo: createAuditRepo(store), now });
    const stack = openCliLinks(store, config, { now, audit });
    try {
      const { tier } = await stack.accounts.getOrganization(orgId);
      const ctx: OrgContext = { orgId, tier, features: featuresOf(tier), actor: OPERATOR };
      return await run({ ctx, links: stack.links, store, analytics: config.analytics });
    } finally {
      await stack.close();
    }
  } finally {
    await store.close();
  }
}

/** `GET /v1/links/{id}/stats`'s answer, from the analytics service the API uses. */
async function statsOf({ ctx, links, store, analytics }: LinkCommandServices, id: string) {
  const { createAnalyticsService } = await import('../analytics/service.js');
  const unused = () => {
    throw new Error('not used by linkhop link stats');
  };
  const service = createAnalyticsService({
    store,
    analytics,
    links,
    // Reading stats redeems no tap and emits no event.
    tapTokens: { redeem: unused, verify: unused },
    emitEvent: unused,
    now: () => new Date(),
  });
  return service.linkStats(ctx, id);
}

/**
 * `linkhop link create|list|get|stats --org ORG_ID`: the API's link calls at the command line, through the
 * same services (slug rules, plan gates, the link cap, link.created events, the audit log as the
 * operator's). Each prints what the API answers, as one JSON line.
 */
export async function runLink(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (sub !== 'create' && sub !== 'list' && sub !== 'get' && sub !== 'stats') throw new CliError(SHORT_USAGE);
  const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: OPTIONS });
  const orgId = values.org;
  if (!orgId) throw new CliError(`link ${sub} needs --org ORG_ID (the organization's id: linkhop org list)`);
  if (sub === 'list') {
    if (positionals.length > 0) throw new CliError(SHORT_USAGE);
    const query = listInput(values);
    printJson(await withLinks(orgId, async ({ ctx, links }) => ({ links: await links.list(ctx, query) })));
    return;
  }
  const [target] = positionals;
  if (!target || positionals.length !== 1)
    throw new CliError(
      sub === 'create' ? 'link create needs the URL: linkhop link create URL --org ORG_ID' : SHORT_USAGE,
    );
  // As the API: an id that cannot name a link is not found, before any query.
  if (sub !== 'create' && !isWellFormedId(target)) throw new CliError('No such link');
  if (sub === 'create') {
    const input = createInput(target, values);
    printJson(await withLinks(orgId, ({ ctx, links }) => links.create(ctx, input)));
    return;
  }
  if (sub === 'get') {
    printJson(await withLinks(orgId, ({ ctx, links }) => links.get(ctx, target)));
    return;
  }
  printJson(await withLinks(orgId, (services) => statsOf(services, target)));
}
