import type { Kysely, Selectable, Transaction } from 'kysely';
import type { HealthState, LinkHealth } from '../core/health.js';
import { destinationKey } from '../health/key.js';
import type { Database, LinkTable } from '../store/schema.js';
import type { AbAutoPromote, AbVariant, Routing, SchedEntry, Utm } from './schema.js';

/*
 * How a link maps to its rows: the links row's columns, and its tags and pixels in their own tables, read
 * and written here for repo.ts (in its transaction when it writes).
 */

/** A hosted link as stored, powers parsed. */
export interface LinkRecord {
  id: string;
  orgId: string;
  /** '' is the default host. */
  host: string;
  slug: string;
  destination: string;
  platformKey: string | null;
  archivedAt: string | null;
  readOnly: boolean;
  utm: Utm | null;
  routing: Routing | null;
  ab: AbVariant[] | null;
  /** When the running A/B test began (absent in records cached before it existed), and its auto-promote rule. */
  abStartedAt?: string | null;
  abAutoPromote?: AbAutoPromote | null;
  sched: SchedEntry[] | null;
  passwordHash: string | null;
  folderId: string | null;
  captureEmails: boolean;
  tags: string[];
  pixelIds: string[];
  /** Campaign end (ISO 8601 UTC), where the link re-points once expired, and its human-click limit. */
  expiresAt: string | null;
  expiredUrl: string | null;
  maxClicks: number | null;
  /** Human clicks counted against maxClicks; written only by the click counter and a cleared limit. */
  clickCount: number;
  /** When link.expired was claimed (null while not expired); written only by claimExpiry and un-expiring. */
  expiredAt: string | null;
  publicStats: boolean;
  /** Where visits go while the destination is down (destination health); absent in records cached before. */
  fallbackUrl?: string | null;
  /** The destination's health, as read with the link (lists and gets); absent: not read. */
  health?: LinkHealth;
  createdAt: string;
  updatedAt: string;
}

/** What the redirect needs: the link, its organization's tier (branding, pixels, fallback) and its pixels. */
export interface RedirectRecord extends LinkRecord {
  tier: string;
  orgName: string;
  /**
   * When its organization was erased (account deletion): the link still redirects (permanence), but its
   * visits are no one's analytics any more and are not recorded. Absent in records cached before.
   */
  orgDeletedAt?: string | null;
  pixels: { type: 'meta' | 'tiktok' | 'gtm'; pixelId: string }[];
  /** The preview shown on the rich fallback page (custom when set, else scraped), or null. */
  preview: { title: string | null; description: string | null; image: string | null } | null;
}

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

export function toColumns(link: LinkRecord) {
  return {
    id: link.id,
    org_id: link.orgId,
    host: link.host,
    slug: link.slug,
    destination: link.destination,
    platform_key: link.platformKey,
    archived_at: link.archivedAt,
    read_only: link.readOnly ? 1 : 0,
    utm: text(link.utm),
    routing: text(link.routing),
    ab: text(link.ab),
    ab_started_at: link.abStartedAt ?? null,
    ab_auto_promote: text(link.abAutoPromote),
    sched: text(link.sched),
    password_hash: link.passwordHash,
    folder_id: link.folderId,
    capture_emails: link.captureEmails ? 1 : 0,
    expires_at: link.expiresAt,
    expired_url: link.expiredUrl,
    max_clicks: link.maxClicks,
    public_stats: link.publicStats ? 1 : 0,
    fallback_url: link.fallbackUrl ?? null,
    destination_key: destinationKey(link.destination),
    created_at: link.createdAt,
    updated_at: link.updatedAt,
  };
}

function fromRow(row: Selectable<LinkTable>, tags: string[], pixelIds: string[]): LinkRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    host: row.host,
    slug: row.slug,
    destination: row.destination,
    platformKey: row.platform_key,
    archivedAt: row.archived_at,
    readOnly: Number(row.read_only) === 1,
    utm: json(row.utm),
    routing: json(row.routing),
    ab: json(row.ab),
    abStartedAt: row.ab_started_at,
    abAutoPromote: json(row.ab_auto_promote),
    sched: json(row.sched),
    passwordHash: row.password_hash,
    folderId: row.folder_id,
    captureEmails: Number(row.capture_emails) === 1,
    tags,
    pixelIds,
    expiresAt: row.expires_at,
    expiredUrl: row.expired_url,
    maxClicks: row.max_clicks === null ? null : Number(row.max_clicks),
    clickCount: Number(row.click_count),
    expiredAt: row.expired_at,
    publicStats: Number(row.public_stats) === 1,
    fallbackUrl: row.fallback_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type Db = Kysely<Database> | Transaction<Database>;

/**
 * The links' records with their tags, pixels and (`health`, on by default) their destination's health.
 * The redirect asks for health only for a link with a fallback URL, the one thing health changes there.
 */
export async function attach(
  db: Db,
  rows: Selectable<LinkTable>[],
  options: { health?: boolean } = {},
): Promise<LinkRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const tags = new Map<string, string[]>();
  const pixels = new Map<string, string[]>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const row of await db
      .selectFrom('link_tags')
      .selectAll()
      .where('link_id', 'in', chunk)
      .orderBy('tag')
      .execute()) {
      tags.set(row.link_id, [...(tags.get(row.link_id) ?? []), row.tag]);
    }
    const pixelRows = await db
      .selectFrom('link_pixels')
      .selectAll()
      .where('link_id', 'in', chunk)
      .orderBy('position')
      .execute();
    for (const row of pixelRows) pixels.set(row.link_id, [...(pixels.get(row.link_id) ?? []), row.pixel_id]);
  }
  const keyOf = (row: Selectable<LinkTable>) => row.destination_key ?? destinationKey(row.destination);
  const health =
    options.health === false ? new Map<string, LinkHealth>() : await healthOf(db, rows.map(keyOf));
  return rows.map((row) => {
    const record = fromRow(row, tags.get(row.id) ?? [], pixels.get(row.id) ?? []);
    const known = health.get(keyOf(row));
    if (known) record.health = known;
    return record;
  });
}

/** The health of these destinations (destination health, issue #33), by key; one not tracked is absent. */
async function healthOf(db: Db, destinationKeys: readonly string[]): Promise<Map<string, LinkHealth>> {
  const found = new Map<string, LinkHealth>();
  const keys = [...new Set(destinationKeys)];
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom('destinations')
      .select(['id', 'state', 'checked_at', 'since', 'last_status'])
      .where('id', 'in', keys.slice(i, i + 500))
      .execute();
    for (const row of rows) {
      found.set(row.id, {
        state: row.state as HealthState,
        checkedAt: row.checked_at,
        since: row.since,
        lastStatus: row.last_status === null ? null : Number(row.last_status),
      });
    }
  }
  return found;
}

export async function writeAssignments(trx: Transaction<Database>, link: LinkRecord): Promise<void> {
  await trx.deleteFrom('link_tags').where('link_id', '=', link.id).execute();
  await trx.deleteFrom('link_pixels').where('link_id', '=', link.id).execute();
  if (link.tags.length > 0) {
    await trx
      .insertInto('link_tags')
      .values(link.tags.map((tag) => ({ link_id: link.id, tag })))
      .execute();
  }
  if (link.pixelIds.length > 0) {
    await trx
      .insertInto('link_pixels')
      .values(link.pixelIds.map((pixelId, position) => ({ link_id: link.id, pixel_id: pixelId, position })))
      .execute();
  }
}
