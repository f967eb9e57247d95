import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import type { BioPageRecord, BioRepo, MediaKitRecord } from '../bio/repo.js';
import type { PublicBio } from '../bio/schema.js';
import type { BioService } from '../bio/service.js';
import { appOpenRate, type CreatorStatsSource, measured, STATS_WINDOW_DAYS } from '../bio/stats-source.js';
import { AppError, appError, featureError } from '../errors.js';
import type { OrgContext } from '../tenancy/context.js';
import { hasFeature, type Tier } from '../tenancy/plans.js';
import {
  type DashboardKit,
  DEFAULT_SETTINGS,
  type MediaKitSettings,
  type PublicKit,
  SECTIONS,
  type Show,
  settingsFrom,
} from './schema.js';

export interface MediaKitServiceDeps {
  repo: BioRepo;
  bio: BioService;
  stats: CreatorStatsSource;
  /** FLAGS_OFF: `mediaKit` answers 403 feature_disabled on every kit call, public ones included. */
  flagsOff: ReadonlySet<string>;
  now: () => Date;
  /** The audit log: each kit change's row in its transaction. */
  audit?: AuditLog;
}

const TOP_PLATFORMS = 8;
const TOP_LINKS = 5;
const whole = (n: number) => Math.max(0, Math.round(n));

/** The app-open numbers the card draws. */
export interface CardData {
  kit: PublicKit;
  appOpen: NonNullable<PublicKit['appOpen']>;
}

export function createMediaKitService(deps: MediaKitServiceDeps) {
  const { repo, stats } = deps;

  const requireFlag = () => {
    if (deps.flagsOff.has('mediaKit')) throw appError('feature_disabled');
  };
  const settingsOf = (record: { published: boolean; show: string }): MediaKitSettings => ({
    published: record.published,
    show: settingsFrom({ show: JSON.parse(record.show) }).show,
  });

  /**
   * The public payload. Identity fields always; each stat section only when switched on and backed by
   * data. Only aggregate numbers: no ids, no destinations, no per-visitor dimension. Top links are
   * limited to links already on the public bio page, labelled as the page labels them.
   */
  async function build(page: BioPageRecord, view: PublicBio, show: Show): Promise<PublicKit> {
    const kit: PublicKit = {
      handle: view.handle,
      title: view.title,
      bio: view.bio,
      avatarUrl: view.avatarUrl,
      theme: view.theme,
      updatedAt: view.updatedAt,
      window: STATS_WINDOW_DAYS,
      sampled: true,
      configured: stats.configured,
      empty: true,
    };
    // Not connected: every number would be a placeholder zero, so there is nothing to report.
    if (!stats.configured || !SECTIONS.some((s) => show[s])) return kit;
    const needsSummary = show.taps || show.appOpenRate || show.platforms || show.trend;
    const summary = needsSummary ? await stats.orgSummary(page.orgId, STATS_WINDOW_DAYS) : undefined;
    if (summary && show.taps && whole(summary.taps) > 0) kit.taps = whole(summary.taps);
    if (summary && show.appOpenRate && measured(summary.outcomes) > 0) {
      const o = summary.outcomes;
      kit.appOpen = {
        rate: appOpenRate(o),
        opened: whole(o.opened),
        browser: whole(o.browser),
        broken: whole(o.broken),
      };
    }
    if (summary && show.platforms) {
      const platforms = summary.platforms
        .map((p) => ({ platform: p.platform, clicks: whole(p.clicks) }))
        .filter((p) => p.clicks > 0)
        .sort((a, b) => b.clicks - a.clicks)
        .slice(0, TOP_PLATFORMS);
      if (platforms.length > 0) kit.platforms = platforms;
    }
    if (summary && show.trend && summary.trend.some((d) => whole(d.clicks) > 0)) {
      kit.trend = summary.trend.map((d) => ({ day: d.day, clicks: whole(d.clicks) }));
    }
    if (show.topLinks) {
      const links = await deps.bio.pageLinks(page);
      const sums =
        links.length > 0
          ? await stats.linkStats(
              page.orgId,
              links.map((l) => l.linkId),
              STATS_WINDOW_DAYS,
            )
          : new Map();
      const top = links
        .map((l) => ({ label: l.label, url: l.url, clicks: whole(sums.get(l.linkId)?.clicks ?? 0) }))
        .filter((l) => l.clicks > 0)
        .sort((a, b) => b.clicks - a.clicks)
        .slice(0, TOP_LINKS);
      if (top.length > 0) kit.topLinks = top;
    }
    kit.empty = !(kit.taps || kit.appOpen || kit.platforms || kit.topLinks || kit.trend);
    return kit;
  }

  /** The owner's view of the page as the public would see it, published or not. */
  async function ownerView(page: BioPageRecord, tier: Tier): Promise<PublicBio> {
    const theme = page.theme && hasFeature(tier, 'bioCustomTheme') ? JSON.parse(page.theme) : null;
    return {
      handle: page.handle,
      title: page.title,
      bio: page.bio,
      avatarUrl: page.avatarUrl,
      theme,
      updatedAt: page.updatedAt,
      blocks: [],
    };
  }

  async function dashboard(ctx: OrgContext, page: BioPageRecord): Promise<DashboardKit> {
    const record = await repo.kitOfPage(ctx.orgId, page.id);
    const kit = record ? settingsOf(record) : null;
    const preview = await build(page, await ownerView(page, ctx.tier), (kit ?? DEFAULT_SETTINGS).show);
    return { kit, preview };
  }

  /** One 404 for unknown, malformed, unpublished page, no kit, unpublished kit (and a plan without it). */
  async function publishedKit(
    handle: string,
  ): Promise<{ kit: PublicKit; settings: MediaKitSettings; tier: Tier }> {
    requireFlag();
    let found: Awaited<ReturnType<BioService['published']>>;
    try {
      found = await deps.bio.published(handle);
    } catch (error) {
      if (error instanceof AppError && error.status === 404) throw appError('not_found', 'No such media kit');
      throw error;
    }
    const record = await repo.kitOfPage(found.record.orgId, found.record.id);
    const settings = record && settingsOf(record);
    if (!settings?.published || !hasFeature(found.tier, 'mediaKit'))
      throw appError('not_found', 'No such media kit');
    return { kit: await build(found.record, found.view, settings.show), settings, tier: found.tier };
  }

  return {
    /** Needs only the flag: a downgraded creator can still see what the kit holds. */
    async get(ctx: OrgContext): Promise<DashboardKit> {
      requireFlag();
      const page = await repo.pageOfOrg(ctx.orgId);
      if (!page) return { kit: null, preview: null, needsBioPage: true };
      return dashboard(ctx, page);
    },

    async save(ctx: OrgContext, body: { published?: unknown; show?: unknown }): Promise<DashboardKit> {
      requireFlag();
      if (!ctx.features.mediaKit) throw featureError('mediaKit');
      const page = await repo.pageOfOrg(ctx.orgId);
      if (!page) throw appError('no_bio_page', 'Create a bio page first: the media kit lives on it');
      const settings = settingsFrom(body);
      const now = deps.now().toISOString();
      const existing = await repo.kitOfPage(ctx.orgId, page.id);
      const next = {
        pageId: page.id,
        published: settings.published,
        show: JSON.stringify(settings.show),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      const audited = (kit: MediaKitRecord | undefined) =>
        kit && { published: kit.published, show: JSON.parse(kit.show) as unknown };
      await repo.transaction(async (trx) => {
        await repo.saveKit(trx, ctx.orgId, next);
        await deps.audit?.record(trx, ctx, {
          action: 'media_kit.updated',
          target: { type: 'media_kit', id: page.id },
          changes: changesBetween(audited(existing) ?? null, audited(next) ?? null),
        });
      });
      return dashboard(ctx, page);
    },

    /** No tier gate; clears only the kit, the bio page stays. */
    async remove(ctx: OrgContext): Promise<{ deleted: true }> {
      requireFlag();
      const page = await repo.pageOfOrg(ctx.orgId);
      if (!page) throw appError('no_bio_page', 'There is no bio page, so there is no media kit');
      await repo.transaction(async (trx) => {
        await repo.deleteKit(trx, ctx.orgId, page.id);
        await deps.audit?.record(trx, ctx, {
          action: 'media_kit.deleted',
          target: { type: 'media_kit', id: page.id },
        });
      });
      return { deleted: true };
    },

    async publicKit(handle: string): Promise<PublicKit> {
      return (await publishedKit(handle)).kit;
    },

    /** For the HTML page: the payload and whether the card can be shown. */
    publishedKit,

    /** 404 unless published with the app-open section on; 409 no_data without outcome rows. */
    async card(handle: string): Promise<CardData> {
      const { kit, settings } = await publishedKit(handle);
      if (!settings.show.appOpenRate) throw appError('not_found', 'This media kit has no app-open card');
      if (!kit.appOpen) throw new AppError('no_data', 409, 'No tap outcomes have been measured yet');
      return { kit, appOpen: kit.appOpen };
    },

    flagOff: () => deps.flagsOff.has('mediaKit'),
  };
}

export type MediaKitService = ReturnType<typeof createMediaKitService>;
