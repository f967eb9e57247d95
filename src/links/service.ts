import type { Transaction } from 'kysely';
import { hashPassword } from '../accounts/secrets.js';
import { changesBetween } from '../audit/changes.js';
import type { AuditChange } from '../audit/schema.js';
import type { AuditLog } from '../audit/service.js';
import { isExpired } from '../core/link-compile.js';
import type { PlatformTable } from '../core/platforms/index.js';
import type { RandomBytes } from '../core/slugs.js';
import { generateSlug } from '../core/slugs.js';
import { type AppError, appError, featureError } from '../errors.js';
import { isUniqueViolation } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { OrgContext } from '../tenancy/context.js';
import type { Feature } from '../tenancy/plans.js';
import { LINK_CAPS } from '../tenancy/plans.js';
import type { EventOutbox } from '../webhooks/service.js';
import type { LinkRecord, LinkRepo } from './repo.js';
import type { CreateLinkInput, Link, LinkHealthHistory, LinkListFilter, UpdateLinkInput } from './schema.js';

const GENERATED_SLUG_LENGTH = 7;
const GENERATION_ATTEMPTS = 8;

export type LinkEvent = 'link.created' | 'link.updated' | 'link.archived';

export interface LinkServiceDeps {
  repo: LinkRepo;
  table: PlatformTable;
  baseUrl: string;
  now: () => Date;
  uuid: () => string;
  randomBytes: RandomBytes;
  /** Drops the compiled link served at (host, slug) from every instance's cache. */
  invalidate: (host: string, slug: string) => void;
  /** Outbound events: their outbox rows are written in the transaction of the link write. */
  events: EventOutbox;
  /** After archiving, freed slots unlock read-only links oldest first. */
  reapplyLinkCap: (ctx: OrgContext) => Promise<void>;
  /** The audit log: each write's row goes in the write's transaction. */
  audit?: AuditLog;
  /** Destination health: makes sure a live link's destination is checked, in the write's transaction. */
  trackDestination?: (trx: Transaction<Database>, url: string) => Promise<void>;
  /** The destination's last checks, newest first. */
  destinationChecks?: (url: string) => Promise<LinkHealthHistory['checks']>;
}

/** A link whose destination was never checked (or is not tracked yet). */
const UNKNOWN_HEALTH = Object.freeze({
  state: 'unknown' as const,
  checkedAt: null,
  since: null,
  lastStatus: null,
});

/** The link fields an audit row compares (derived ones like shortUrl and timestamps left out). */
const AUDITED_FIELDS = [
  'slug',
  'hostname',
  'destination',
  'utm',
  'routing',
  'ab',
  'abAutoPromote',
  'sched',
  'hasPassword',
  'tags',
  'folderId',
  'pixelIds',
  'captureEmails',
  'expiresAt',
  'expiredUrl',
  'maxClicks',
  'publicStats',
  'fallbackUrl',
] as const;

/** The feature each power needs when set to a value (clearing a power is always allowed). */
function requiredFeatures(input: UpdateLinkInput): Feature[] {
  const needs: Feature[] = [];
  if (input.slug !== undefined) needs.push('customSlugs');
  if (input.hostname) needs.push('customDomains');
  if (input.folderId) needs.push('folders');
  if (input.pixelIds && input.pixelIds.length > 0) needs.push('pixelInjection');
  if (input.captureEmails === true) needs.push('audienceCapture');
  // Public stats show the owner's full analytics: a plan without them has nothing to publish.
  if (input.publicStats === true) needs.push('fullAnalytics');
  if (input.ab || input.abAutoPromote) needs.push('abTesting');
  // Re-pointing a link while its destination is down is routing: the plans that route have it.
  if (input.fallbackUrl) needs.push('platformTargeting');
  if (input.sched && input.sched.length > 0) needs.push('scheduledLinks');
  if (input.password) needs.push('passwordLinks');
  if (input.routing) {
    const { ios, android, desktop, geo } = input.routing;
    if (ios || android || desktop) needs.push('platformTargeting');
    if (geo && Object.keys(geo).length > 0) needs.push('geoRouting');
  }
  return needs;
}

function validationError(path: string, message: string): AppError {
  return appError('invalid_body', message, { issues: [{ code: 'custom', path: [path], message }] });
}

/** The same A/B test: the same variant URLs in the same order (weights may change while it runs). */
const sameTest = (a: readonly { u: string }[] | null, b: readonly { u: string }[] | null): boolean =>
  a !== null && b !== null && a.length === b.length && a.every((variant, i) => variant.u === b[i]?.u);

export function createLinkService(deps: LinkServiceDeps) {
  const { repo } = deps;

  const present = (ctx: OrgContext, link: LinkRecord): Link => ({
    id: link.id,
    slug: link.slug,
    hostname: link.host === '' ? null : link.host,
    shortUrl: link.host === '' ? `${deps.baseUrl}/${link.slug}` : `https://${link.host}/${link.slug}`,
    destination: link.destination,
    platformKey: link.platformKey,
    branded: !ctx.features.removeBranding,
    readOnly: link.readOnly,
    utm: link.utm,
    routing: link.routing,
    ab: link.ab,
    abAutoPromote: link.abAutoPromote ?? null,
    sched: link.sched,
    hasPassword: link.passwordHash !== null,
    tags: link.tags,
    folderId: link.folderId,
    pixelIds: link.pixelIds,
    captureEmails: link.captureEmails,
    expiresAt: link.expiresAt,
    expiredUrl: link.expiredUrl,
    maxClicks: link.maxClicks,
    expired: isExpired(link, deps.now().getTime()),
    publicStats: link.publicStats,
    fallbackUrl: link.fallbackUrl ?? null,
    health: link.health ?? UNKNOWN_HEALTH,
    archived: link.archivedAt !== null,
    createdAt: link.createdAt,
    updatedAt: link.updatedAt,
  });

  async function checkReferences(
    ctx: OrgContext,
    input: UpdateLinkInput,
    current?: LinkRecord,
  ): Promise<void> {
    // A hostname must be a verified domain of this organization; keeping the one a link has is always fine
    // (links on a hostname given to another organization by migration 013 keep redirecting and editable).
    if (input.hostname && input.hostname !== current?.host) {
      if (!(await repo.ownsVerifiedDomain(ctx.orgId, input.hostname))) {
        throw appError(
          'unknown_domain',
          `${input.hostname} is not a verified domain of this organization: add it under /domains and verify it`,
          { issues: [{ code: 'custom', path: ['hostname'], message: 'Not a verified domain' }] },
        );
      }
    }
    if (input.folderId && !(await repo.folderExists(ctx.orgId, input.folderId))) {
      throw validationError('folderId', 'No such folder');
    }
    if (input.pixelIds) {
      const missing = await repo.missingPixels(ctx.orgId, input.pixelIds);
      if (missing.length > 0) throw validationError('pixelIds', `No such pixel: ${missing.join(', ')}`);
    }
  }

  function checkGates(ctx: OrgContext, input: UpdateLinkInput): void {
    for (const feature of requiredFeatures(input)) {
      if (!ctx.features[feature]) throw featureError(feature);
    }
  }

  /** Applies a body onto a record: `null` clears, arrays and objects replace wholesale. */
  async function apply(link: LinkRecord, input: UpdateLinkInput): Promise<LinkRecord> {
    const next = { ...link };
    if (input.url !== undefined) {
      next.destination = input.url;
      next.platformKey = deps.table.match(input.url)?.key ?? null;
    }
    if (input.slug !== undefined) next.slug = input.slug;
    if (input.hostname !== undefined) next.host = input.hostname ?? '';
    if (input.tags !== undefined) next.tags = [...new Set(input.tags ?? [])];
    if (input.folderId !== undefined) next.folderId = input.folderId;
    if (input.pixelIds !== undefined) next.pixelIds = [...new Set(input.pixelIds ?? [])];
    if (input.captureEmails !== undefined) next.captureEmails = input.captureEmails;
    if (input.utm !== undefined) next.utm = input.utm;
    if (input.routing !== undefined) next.routing = input.routing;
    if (input.ab !== undefined) {
      // New variant URLs start a new test (its readout counts from now); a link without variants has none.
      if (!sameTest(link.ab, input.ab)) next.abStartedAt = input.ab ? deps.now().toISOString() : null;
      next.ab = input.ab;
    }
    if (input.abAutoPromote !== undefined) next.abAutoPromote = input.abAutoPromote;
    if (!next.ab && next.abAutoPromote) {
      // The rule belongs to the test: clearing the variants clears it; setting it alone is a mistake.
      if (input.abAutoPromote)
        throw validationError('abAutoPromote', 'abAutoPromote needs A/B variants (ab)');
      next.abAutoPromote = null;
    }
    if (input.sched !== undefined) {
      // Stored sorted ascending; duplicate timestamps collapse to the last one given.
      const byFrom = new Map((input.sched ?? []).map((entry) => [entry.from, entry]));
      next.sched = input.sched === null ? null : [...byFrom.values()].sort((a, b) => a.from - b.from);
    }
    if (input.password !== undefined)
      next.passwordHash = input.password === null ? null : await hashPassword(input.password);
    if (input.expiresAt !== undefined)
      next.expiresAt = input.expiresAt === null ? null : new Date(input.expiresAt).toISOString();
    if (input.expiredUrl !== undefined) next.expiredUrl = input.expiredUrl;
    if (input.maxClicks !== undefined) next.maxClicks = input.maxClicks;
    if (input.publicStats !== undefined) next.publicStats = input.publicStats;
    if (input.fallbackUrl !== undefined) next.fallbackUrl = input.fallbackUrl;
    if (next.ab && next.routing) throw appError('ab_routing_conflict');
    if ((next.expiresAt !== null || next.maxClicks !== null) && next.expiredUrl === null) {
      const set = next.expiresAt !== null ? 'expiresAt' : 'maxClicks';
      throw validationError(
        'expiredUrl',
        `expiredUrl is required when ${set} is set: where visits go once the link expires`,
      );
    }
    return next;
  }

  /** The audit row of a link write: the audited fields that changed, as the API shows them. */
  function auditChange(
    ctx: OrgContext,
    event: LinkEvent,
    record: LinkRecord,
    shown: Link,
    before: LinkRecord | null,
  ): AuditChange {
    const changes = changesBetween(before && present(ctx, before), shown, { only: AUDITED_FIELDS });
    if (before && before.passwordHash !== record.passwordHash) changes.password = { changed: true };
    if (event === 'link.archived') changes.archivedAt = { from: null, to: record.archivedAt };
    return { action: event, target: { type: 'link', id: record.id }, changes };
  }

  /**
   * One link write, one unit of work: the link's rows, then `event`'s outbox rows, then the audit row,
   * committed together or not at all (a failing fan-out fails the call and rolls the change back); then
   * the worker is woken. `record` is presented once, for the event, the audit row and the answer. Null,
   * with nothing written, when (host, slug) is taken.
   */
  async function write(
    ctx: OrgContext,
    kind: 'insert' | 'update',
    event: LinkEvent,
    record: LinkRecord,
    before: LinkRecord | null = null,
  ): Promise<Link | null> {
    const shown = present(ctx, record);
    const change = auditChange(ctx, event, record, shown, before);
    let queued = 0;
    try {
      await repo.transaction(async (trx) => {
        if (kind === 'insert') await repo.insert(trx, record);
        else await repo.update(trx, record);
        // A live link's destination is checked (destination health); an archived one's is left to go.
        if (record.archivedAt === null) await deps.trackDestination?.(trx, record.destination);
        queued = await deps.events.emitIn(trx, ctx.orgId, event, shown);
        await deps.audit?.record(trx, ctx, change);
      });
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
    if (queued > 0) deps.events.nudge();
    return shown;
  }

  /** The new link as written and presented; a generated slug is drawn again while it is taken. */
  async function insertWithSlug(
    ctx: OrgContext,
    record: LinkRecord,
    custom: boolean,
  ): Promise<{ record: LinkRecord; shown: Link }> {
    if (custom) {
      const shown = await write(ctx, 'insert', 'link.created', record);
      if (!shown) throw appError('slug_taken');
      return { record, shown };
    }
    for (let attempt = 0; attempt < GENERATION_ATTEMPTS; attempt++) {
      const candidate = { ...record, slug: generateSlug(GENERATED_SLUG_LENGTH, deps.randomBytes) };
      const shown = await write(ctx, 'insert', 'link.created', candidate);
      if (shown) return { record: candidate, shown };
    }
    throw new Error('Could not generate a free slug');
  }

  async function load(ctx: OrgContext, id: string): Promise<LinkRecord> {
    const link = await repo.find(ctx.orgId, id);
    if (!link) throw appError('not_found', 'No such link');
    return link;
  }

  return {
    present,

    /** `createdAt` keeps an imported link's original creation date (src/imports); otherwise now. */
    async create(
      ctx: OrgContext,
      input: CreateLinkInput,
      options: { createdAt?: string } = {},
    ): Promise<Link> {
      checkGates(ctx, input);
      if ((await repo.countLive(ctx.orgId)) >= LINK_CAPS[ctx.tier]) throw appError('link_cap_reached');
      await checkReferences(ctx, input);
      const now = deps.now().toISOString();
      const empty: LinkRecord = {
        id: deps.uuid(),
        orgId: ctx.orgId,
        host: '',
        slug: '',
        destination: input.url,
        platformKey: null,
        archivedAt: null,
        readOnly: false,
        utm: null,
        routing: null,
        ab: null,
        abStartedAt: null,
        abAutoPromote: null,
        sched: null,
        passwordHash: null,
        folderId: null,
        captureEmails: false,
        tags: [],
        pixelIds: [],
        expiresAt: null,
        expiredUrl: null,
        maxClicks: null,
        clickCount: 0,
        expiredAt: null,
        publicStats: false,
        createdAt: options.createdAt ?? now,
        updatedAt: now,
      };
      const { record, shown } = await insertWithSlug(
        ctx,
        await apply(empty, input),
        input.slug !== undefined,
      );
      deps.invalidate(record.host, record.slug);
      return shown;
    },

    async get(ctx: OrgContext, id: string): Promise<Link> {
      return present(ctx, await load(ctx, id));
    },

    /** The destination's health and its last checks (destination health, issue #33). */
    async health(ctx: OrgContext, id: string): Promise<LinkHealthHistory> {
      const link = present(ctx, await load(ctx, id));
      const checks = (await deps.destinationChecks?.(link.destination)) ?? [];
      return { ...link.health, checks };
    },

    async list(ctx: OrgContext, page: LinkListFilter): Promise<Link[]> {
      const now = deps.now().toISOString();
      return (await repo.list(ctx.orgId, { ...page, now })).map((link) => present(ctx, link));
    },

    async update(ctx: OrgContext, id: string, input: UpdateLinkInput): Promise<Link> {
      const current = await load(ctx, id);
      if (current.readOnly) throw appError('read_only');
      if (input.url !== undefined && !ctx.features.editDestination) throw featureError('editDestination');
      checkGates(ctx, input.hostname === current.host ? { ...input, hostname: undefined } : input);
      await checkReferences(ctx, input, current);
      const next = await apply(current, input);
      next.updatedAt = deps.now().toISOString();
      const shown = await write(ctx, 'update', 'link.updated', next, current);
      if (!shown) throw appError('slug_taken');
      deps.invalidate(current.host, current.slug);
      deps.invalidate(next.host, next.slug);
      return shown;
    },

    /** Archiving frees a slot and hides the link from lists; it keeps redirecting. */
    async archive(ctx: OrgContext, id: string): Promise<{ archived: true; note: string }> {
      const current = await load(ctx, id);
      if (current.archivedAt === null) {
        const archived = { ...current, archivedAt: deps.now().toISOString(), readOnly: false };
        await write(ctx, 'update', 'link.archived', archived, current);
        // A visit is served the same archived or not; dropped anyway so no instance holds a stale row.
        deps.invalidate(archived.host, archived.slug);
        await deps.reapplyLinkCap(ctx);
      }
      return { archived: true, note: 'The link is hidden from lists and keeps redirecting.' };
    },

    /** Brings an archived link back to the live list; it takes a slot under the plan's link cap again. */
    async unarchive(ctx: OrgContext, id: string): Promise<Link> {
      const current = await load(ctx, id);
      if (current.archivedAt === null) return present(ctx, current);
      if ((await repo.countLive(ctx.orgId)) >= LINK_CAPS[ctx.tier]) throw appError('link_cap_reached');
      const restored = { ...current, archivedAt: null, updatedAt: deps.now().toISOString() };
      const shown = await write(ctx, 'update', 'link.updated', restored);
      deps.invalidate(restored.host, restored.slug);
      // An archived link's slug stays its own, so the write is never refused as taken.
      return shown ?? present(ctx, restored);
    },
  };
}

export type LinkService = ReturnType<typeof createLinkService>;
