import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import { appError, featureError } from '../errors.js';
import { isUniqueViolation } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { hasFeature, type Tier } from '../tenancy/plans.js';
import { checkHandle, HANDLE_PATTERN, normaliseHandle } from './handles.js';
import type { BioPageRecord, BioRepo, LinkAddress } from './repo.js';
import {
  type BioInput,
  type BioPage,
  type BioStats,
  type Block,
  blockList,
  linkIdsOf,
  type PublicBio,
  type PublicBlock,
  type Theme,
} from './schema.js';
import { appOpenRate, type CreatorStatsSource, STATS_WINDOW_DAYS, UPGRADE } from './stats-source.js';

export interface BioServiceDeps {
  repo: BioRepo;
  stats: CreatorStatsSource;
  baseUrl: string;
  /** FLAGS_OFF of decisions.md: `linkInBio` here answers 403 feature_disabled on every bio call. */
  flagsOff: ReadonlySet<string>;
  now: () => Date;
  uuid: () => string;
  /** The audit log: each page change's row in its transaction. */
  audit?: AuditLog;
}

/** A published page as the public reads it, plus what the media kit needs to build on it. */
export interface PublishedPage {
  record: BioPageRecord;
  tier: Tier;
  view: PublicBio;
}

const parseJson = <T>(text: string | null, fallback: T): T =>
  text === null ? fallback : (JSON.parse(text) as T);

export function present(record: BioPageRecord): BioPage {
  return {
    id: record.id,
    handle: record.handle,
    title: record.title,
    bio: record.bio,
    avatarUrl: record.avatarUrl,
    theme: parseJson<Theme | null>(record.theme, null),
    blocks: parseJson<Block[]>(record.blocks, []),
    published: record.published,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The page fields an audit row compares; blocks are their own action. */
const BIO_AUDITED = ['handle', 'title', 'bio', 'avatarUrl', 'theme', 'published'];

export function createBioService(deps: BioServiceDeps) {
  const { repo } = deps;
  const iso = () => deps.now().toISOString();

  const requireFlag = () => {
    if (deps.flagsOff.has('linkInBio')) throw appError('feature_disabled');
  };
  const requireBio = (ctx: OrgContext) => {
    requireFlag();
    if (!ctx.features.linkInBio) throw featureError('linkInBio');
  };
  const pageOf = async (ctx: OrgContext) => {
    const page = await repo.pageOfOrg(ctx.orgId);
    if (!page) throw appError('no_bio_page', 'Create the bio page first');
    return page;
  };

  // Same rule as the link service's shortUrl: '' is the default host.
  const shortUrl = (link: LinkAddress) =>
    link.host === '' ? `${deps.baseUrl}/${link.slug}` : `https://${link.host}/${link.slug}`;

  async function publicBlocks(orgId: string, blocks: Block[]): Promise<PublicBlock[]> {
    const links = await repo.linkAddresses(orgId, linkIdsOf(blocks));
    const url = (id: string) => {
      const link = links.get(id);
      return link ? shortUrl(link) : undefined;
    };
    return blocks.flatMap((block): PublicBlock[] => {
      if (block.t === 'header' || block.t === 'text') return [{ t: block.t, id: block.id, text: block.text }];
      if (block.t === 'link') {
        const href = url(block.linkId);
        if (!href) return [];
        return [
          {
            t: 'link',
            id: block.id,
            label: block.label,
            ...(block.note ? { note: block.note } : {}),
            url: href,
          },
        ];
      }
      const items = block.items.flatMap((item) => {
        const href = url(item.linkId);
        return href ? [{ key: item.key, url: href }] : [];
      });
      return items.length > 0 ? [{ t: 'social', id: block.id, items }] : [];
    });
  }

  /**
   * The published page at a handle, or 404 for unknown, malformed and unpublished handles alike.
   * The theme shows only while the plan still includes custom themes.
   */
  async function published(handleInput: string): Promise<PublishedPage> {
    const handle = normaliseHandle(handleInput);
    const found = HANDLE_PATTERN.test(handle) ? await repo.pageByHandle(handle) : undefined;
    if (!found?.published) throw appError('not_found', 'No such page');
    const page = present(found);
    const tier = found.tier as Tier;
    const view: PublicBio = {
      handle: page.handle,
      title: page.title,
      bio: page.bio,
      avatarUrl: page.avatarUrl,
      theme: hasFeature(tier, 'bioCustomTheme') ? page.theme : null,
      updatedAt: page.updatedAt,
      blocks: await publicBlocks(found.orgId, page.blocks),
    };
    return { record: found, tier, view };
  }

  return {
    async get(ctx: OrgContext): Promise<{ page: BioPage | null }> {
      requireBio(ctx);
      const page = await repo.pageOfOrg(ctx.orgId);
      return { page: page ? present(page) : null };
    },

    /** Upsert. Omitted fields keep their stored value (theme included); a new page starts unpublished. */
    async save(ctx: OrgContext, input: BioInput): Promise<BioPage> {
      requireBio(ctx);
      if (input.theme && !ctx.features.bioCustomTheme) throw featureError('bioCustomTheme');
      const checked = checkHandle(input.handle);
      if (!checked.ok) {
        throw appError('invalid_handle', checked.reason, {
          issues: [{ code: 'custom', path: ['handle'], message: checked.reason }],
        });
      }
      const owner = await repo.handleOwner(checked.handle);
      if (owner !== undefined && owner !== ctx.orgId) throw appError('handle_taken');
      const existing = await repo.pageOfOrg(ctx.orgId);
      const now = iso();
      const next: BioPageRecord = {
        id: existing?.id ?? deps.uuid(),
        orgId: ctx.orgId,
        handle: checked.handle,
        title: input.title ?? existing?.title ?? checked.handle,
        bio: input.bio !== undefined ? input.bio : (existing?.bio ?? null),
        avatarUrl: input.avatarUrl !== undefined ? input.avatarUrl : (existing?.avatarUrl ?? null),
        theme:
          input.theme !== undefined ? input.theme && JSON.stringify(input.theme) : (existing?.theme ?? null),
        blocks: existing?.blocks ?? '[]',
        published: input.published ?? existing?.published ?? false,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      try {
        await repo.transaction(async (trx) => {
          if (existing) await repo.updatePage(trx, next);
          else await repo.insertPage(trx, next);
          await deps.audit?.record(trx, ctx, {
            action: existing ? 'bio.updated' : 'bio.created',
            target: { type: 'bio_page', id: next.id },
            changes: changesBetween(existing ?? null, next, { only: BIO_AUDITED }),
          });
        });
      } catch (error) {
        // Two organizations racing for one handle: the UNIQUE index decides, the loser gets 409.
        if (isUniqueViolation(error) && (await repo.handleOwner(checked.handle)) !== ctx.orgId) {
          throw appError('handle_taken');
        }
        throw error;
      }
      return present(next);
    },

    /** No tier gate: a downgraded creator can always take the page down. Links keep redirecting. */
    async remove(ctx: OrgContext): Promise<{ deleted: true }> {
      requireFlag();
      const page = await repo.pageOfOrg(ctx.orgId);
      if (!page) throw appError('not_found', 'There is no bio page');
      await repo.transaction(async (trx) => {
        await repo.deletePage(trx, ctx.orgId, page.id);
        await deps.audit?.record(trx, ctx, {
          action: 'bio.deleted',
          target: { type: 'bio_page', id: page.id },
        });
      });
      return { deleted: true };
    },

    /** The body is the ordered array itself or `{blocks: [...]}`; all or nothing. */
    async replaceBlocks(ctx: OrgContext, body: unknown): Promise<BioPage> {
      requireBio(ctx);
      const page = await pageOf(ctx);
      const raw = Array.isArray(body)
        ? body
        : body && typeof body === 'object' && 'blocks' in body
          ? body.blocks
          : undefined;
      const parsed = blockList.safeParse(raw);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));
        const first = issues[0];
        const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
        throw appError('invalid_blocks', `${where}${first?.message ?? 'Send an array of blocks'}`, {
          issues,
        });
      }
      const blocks = parsed.data;
      const ids = linkIdsOf(blocks);
      const owned = await repo.linkAddresses(ctx.orgId, ids);
      const unknown = ids.filter((id) => !owned.has(id));
      if (unknown.length > 0) {
        throw appError('unknown_link', `No link ${unknown[0]} in this organization`, { linkIds: unknown });
      }
      const updatedAt = iso();
      const text = JSON.stringify(blocks);
      await repo.transaction(async (trx) => {
        await repo.replaceBlocks(trx, ctx.orgId, page.id, text, updatedAt);
        await deps.audit?.record(trx, ctx, {
          action: 'bio.blocks_replaced',
          target: { type: 'bio_page', id: page.id },
          changes: { blocks: { from: JSON.parse(page.blocks), to: blocks } },
        });
      });
      return present({ ...page, blocks: text, updatedAt });
    },

    /** One row per distinct link of the page, in page order. Below hero: `upgrade` and no rows. */
    async stats(ctx: OrgContext): Promise<BioStats> {
      requireBio(ctx);
      const base = { configured: deps.stats.configured, sampled: true as const, window: STATS_WINDOW_DAYS };
      if (!ctx.features.fullAnalytics) return { ...base, blocks: [], upgrade: UPGRADE };
      const page = await repo.pageOfOrg(ctx.orgId);
      const ids = page ? linkIdsOf(present(page).blocks) : [];
      const sums = ids.length > 0 ? await deps.stats.linkStats(ctx.orgId, ids, STATS_WINDOW_DAYS) : new Map();
      const blocks = ids.map((linkId) => {
        const row = sums.get(linkId) ?? { clicks: 0, outcomes: { opened: 0, browser: 0, broken: 0 } };
        const outcomes = { ...row.outcomes };
        return {
          linkId,
          clicks: row.clicks,
          outcomes,
          opened: outcomes.opened,
          appOpenRate: appOpenRate(outcomes),
        };
      });
      return { ...base, blocks };
    },

    /** GET /api/public/bio/{handle}: no auth; the flag still switches it off. */
    async publicPage(handle: string): Promise<PublicBio> {
      requireFlag();
      return (await published(handle)).view;
    },

    published,
    /** The page's links in page order with the label a visitor sees and the service URL; no destination. */
    async pageLinks(record: BioPageRecord): Promise<{ linkId: string; label: string; url: string }[]> {
      const blocks = present(record).blocks;
      const links = await repo.linkAddresses(record.orgId, linkIdsOf(blocks));
      const labelled = blocks.flatMap((b) =>
        b.t === 'link'
          ? [{ linkId: b.linkId, label: b.label }]
          : b.t === 'social'
            ? b.items.map((i) => ({ linkId: i.linkId, label: i.key }))
            : [],
      );
      const seen = new Set<string>();
      return labelled.flatMap(({ linkId, label }) => {
        const link = links.get(linkId);
        if (!link || seen.has(linkId)) return [];
        seen.add(linkId);
        return [{ linkId, label, url: shortUrl(link) }];
      });
    },
    flagOff: () => deps.flagsOff.has('linkInBio'),
    /** The page of an organization, for the media kit (which lives on it). */
    pageOfOrg: (orgId: string) => repo.pageOfOrg(orgId),
  };
}

export type BioService = ReturnType<typeof createBioService>;
