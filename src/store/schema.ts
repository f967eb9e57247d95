import type { Generated } from 'kysely';
import type { WebhookDeliveryTable, WebhookTable } from './migrations/006-webhooks.js';
import type { AnalyticsTables } from './migrations/008-analytics.js';
import type { DmAutomationTable, DmFiringTable, SocialAccountTable } from './migrations/009-social.js';
import type { BioPageTable, MediaKitTable } from './migrations/010-bio.js';
import type {
  BroadcastRecipientTable,
  BroadcastTable,
  ContactTable,
  SegmentTable,
} from './migrations/011-audience.js';
import type { DomainTable } from './migrations/014-domains.js';
import type { GroupRollupTables } from './migrations/016-group-rollups.js';
import type { SignupRequestTable } from './migrations/019-signup-requests.js';
import type { InviteTable, MembershipTable, PasswordResetTable } from './migrations/021-teams.js';
import type { AuditLogTable } from './migrations/022-audit-log.js';
import type { ImportErrorTable, ImportItemTable, ImportTable } from './migrations/023-imports.js';
import type { ImportFairnessColumns } from './migrations/025-import-fairness.js';
import type { DeploymentFactTable } from './migrations/027-deployment-facts.js';
import type { AbTestLinkColumns, AbTestTable } from './migrations/029-ab-tests.js';
import type { SsoConfigTable, SsoIdentityTable, SsoLoginTable } from './migrations/031-sso.js';
import type { BulkActionItemTable, BulkActionTable } from './migrations/032-bulk-actions.js';
import type { LinkGroupHistoryTable } from './migrations/033-link-group-history.js';

/**
 * The tables as Kysely sees them. Portable column types on purpose: timestamps are ISO 8601 UTC
 * strings (they sort as text on both dialects), booleans are 0/1 integers, structured values JSON text.
 */

export interface EngineLinkTable {
  slug: string;
  url: string;
  platform_key: string | null;
  created_at: string;
}

export interface OrganizationTable {
  id: string;
  name: string;
  tier: string;
  created_at: string;
  deleted_at: Generated<string | null>;
}

export interface LinkTable extends AbTestLinkColumns {
  id: string;
  org_id: string;
  /** '' is the default host: a real value keeps (host, slug) unique on both dialects, where NULLs never collide. */
  host: string;
  slug: string;
  destination: string;
  platform_key: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  version: Generated<number>;
  utm: string | null;
  routing: string | null;
  ab: string | null;
  sched: string | null;
  password_hash: string | null;
  folder_id: string | null;
  capture_emails: Generated<number>;
  read_only: Generated<number>;
  /** Migration 020: the campaign end (ISO 8601 UTC), where an expired link re-points, its click limit. */
  expires_at: string | null;
  expired_url: string | null;
  max_clicks: number | null;
  /** Human clicks counted against max_clicks (only while a limit is set). */
  click_count: Generated<number>;
  /** When link.expired was claimed; null while the link is not expired. */
  expired_at: string | null;
  public_stats: Generated<number>;
  /** Migration 028: where visits go while the destination is down (destination health, issue #33). */
  fallback_url: string | null;
  /** Migration 028: SHA-256 (hex) of `destination`, the key of its `destinations` row. */
  destination_key: string | null;
}

/** Migration 028: one distinct destination URL of live links, and its health. */
export interface DestinationTable {
  /** SHA-256 (hex) of `url`. */
  id: string;
  url: string;
  /** The URL's host, lower case: the unit of the per-host rate limit. */
  host: string;
  state: Generated<string>;
  /** When `state` last changed. */
  since: string | null;
  /** Consecutive failed checks. */
  failures: Generated<number>;
  /** When the current streak of failures began. */
  failing_since: string | null;
  checked_at: string | null;
  last_status: number | null;
  last_error: string | null;
  next_check_at: string;
}

export interface DestinationCheckTable {
  destination_id: string;
  checked_at: string;
  /** 'ok', 'failed' or 'neutral' (401, 403, 429: the site is there, it just would not answer us). */
  outcome: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface HealthHostTable {
  host: string;
  claimed_until: string | null;
  claim_token: string | null;
}

export interface HealthDigestTable {
  org_id: string;
  /** YYYY-MM-DD (UTC) of the last digest mailed. */
  sent_day: string;
}

export interface UserTable {
  id: string;
  /** The user's first organization; access is decided by `memberships` (021-teams). */
  org_id: string;
  email: string;
  password_hash: string;
  created_at: string;
}

export interface SessionTable {
  id_hash: string;
  user_id: string;
  /** The organization the session works in; null means the user's first membership. */
  org_id: Generated<string | null>;
  expires_at: string;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  org_id: string;
  key_hash: string;
  prefix: string;
  revoked_at: string | null;
  created_at: string;
  name: Generated<string>;
  /** JSON array of scopes. */
  scopes: Generated<string>;
  last_used_at: Generated<string | null>;
  /** The person who made the key (a key made by a key: its maker); null for the organization's own. */
  created_by: Generated<string | null>;
  /** 1 for the organization's own keys (CLI, organization creation, an owner's so marked): they survive. */
  org_owned: Generated<number>;
}

export interface FolderTable {
  id: string;
  org_id: string;
  name: string;
  created_at: string;
}

export interface PixelTable {
  id: string;
  org_id: string;
  type: string;
  pixel_id: string;
  name: string;
  created_at: string;
}

export interface LinkTagTable {
  link_id: string;
  tag: string;
}

export interface LinkPixelTable {
  link_id: string;
  pixel_id: string;
  position: number;
}

export interface SigningKeyTable {
  purpose: string;
  key_id: string;
  private_key: string;
  created_at: string;
}

export interface LinkPreviewTable {
  link_id: string;
  source: string;
  scraped: string | null;
  custom: string | null;
  updated_at: string;
}

export interface Database extends AnalyticsTables, GroupRollupTables {
  engine_links: EngineLinkTable;
  organizations: OrganizationTable;
  links: LinkTable;
  destinations: DestinationTable;
  destination_checks: DestinationCheckTable;
  health_hosts: HealthHostTable;
  health_digests: HealthDigestTable;
  users: UserTable;
  sessions: SessionTable;
  api_keys: ApiKeyTable;
  folders: FolderTable;
  pixels: PixelTable;
  link_tags: LinkTagTable;
  link_pixels: LinkPixelTable;
  signing_keys: SigningKeyTable;
  link_previews: LinkPreviewTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  contacts: ContactTable;
  segments: SegmentTable;
  broadcasts: BroadcastTable;
  broadcast_recipients: BroadcastRecipientTable;
  social_accounts: SocialAccountTable;
  dm_automations: DmAutomationTable;
  dm_firings: DmFiringTable;
  bio_pages: BioPageTable;
  media_kits: MediaKitTable;
  domains: DomainTable;
  signup_requests: SignupRequestTable;
  imports: ImportTable & ImportFairnessColumns;
  import_errors: ImportErrorTable;
  import_items: ImportItemTable;
  memberships: MembershipTable;
  invites: InviteTable;
  password_resets: PasswordResetTable;
  audit_log: AuditLogTable;
  deployment_facts: DeploymentFactTable;
  ab_tests: AbTestTable;
  sso_configs: SsoConfigTable;
  sso_identities: SsoIdentityTable;
  sso_logins: SsoLoginTable;
  bulk_actions: BulkActionTable;
  bulk_action_items: BulkActionItemTable;
  link_group_history: LinkGroupHistoryTable;
}
