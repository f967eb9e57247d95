/**
 * The shapes the dashboard reads and writes. Where the server has a Zod schema, the type is inferred
 * from it (type-only imports: nothing of the server is bundled), so the client cannot drift from what
 * the routes validate; the rest follow hosted-service.md section 2 and decisions.md word for word.
 */
import type { z } from 'zod';
import type { EscapeCells } from '../../../src/analytics/read/escape-cell-reads.js';
import type { Contact, ContactDetail } from '../../../src/audience/service.js';
import type { BioPage, BioStats, Block, Theme } from '../../../src/bio/schema.js';
import type { Segment, SegmentFilter } from '../../../src/broadcasts/segments.js';
import type { Broadcast } from '../../../src/broadcasts/service.js';
import type { Domain } from '../../../src/domains/schema.js';
import type { Folder } from '../../../src/folders/schema.js';
import type { AbReadout } from '../../../src/links/ab-schema.js';
import type { Preview } from '../../../src/links/preview.js';
import type {
  AbVariant,
  CreateLinkInput,
  Link,
  LinkHealthHistory,
  Routing,
  SchedEntry,
  Utm,
} from '../../../src/links/schema.js';
import type { dashboardKitSchema, PublicKit, settingsSchema } from '../../../src/mediakit/schema.js';
import type { Pixel } from '../../../src/pixels/schema.js';
import type { SocialAccount } from '../../../src/social/accounts.js';
import type { presentFiring, Rule } from '../../../src/social/automations.js';
import type { Trigger } from '../../../src/social/trigger.js';
import type { Feature, Features, Tier } from '../../../src/tenancy/plans.js';
import type { CreatedWebhook, Webhook } from '../../../src/webhooks/schema.js';

export type Automation = Rule;
export type Firing = ReturnType<typeof presentFiring>;

export type {
  AbReadout,
  AbVariant,
  BioPage,
  BioStats,
  Block,
  Broadcast,
  Contact,
  ContactDetail,
  CreatedWebhook,
  CreateLinkInput,
  Domain,
  Feature,
  Features,
  Folder,
  Link,
  LinkHealthHistory,
  Pixel,
  Preview,
  PublicKit,
  Routing,
  SchedEntry,
  Segment,
  SegmentFilter,
  SocialAccount,
  Theme,
  Tier,
  Trigger,
  Utm,
  Webhook,
};

export type MediaKitSettings = z.infer<typeof settingsSchema>;
export type DashboardKit = z.infer<typeof dashboardKitSchema> & { needsBioPage?: boolean };

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface Session {
  user: { id: string; email: string };
  org: { id: string; name: string; tier: Tier };
  /** Your role in `org`. */
  role: Role;
  /** Every organization you belong to, for the switcher. */
  orgs: { id: string; name: string; tier: Tier; role: Role }[];
  features: Features;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  revokedAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** Null for the organization's own key. */
  createdBy: { userId: string; email: string | null } | null;
  organizationKey: boolean;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

export interface Invite {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: { type: 'user' | 'key' | 'system'; id: string; label: string };
  action: string;
  target: { type: string; id: string };
  changes: Record<string, unknown>;
}

export interface Outcomes {
  opened: number;
  browser: number;
  broken: number;
}

/** Clicks by where they came from: the short URL itself, or a scan of the link's QR code. */
export interface Sources {
  link: number;
  qr: number;
}

export interface LinkStats {
  configured: boolean;
  total: number;
  sources: Sources;
  appOpenRate: number | null;
  outcomes: Outcomes;
  upgrade?: string;
}

export interface AbStats {
  configured: boolean;
  sampled: boolean;
  window: number;
  variants: {
    url: string;
    weight: number;
    variant: number;
    clicks: number;
    outcomes: number;
    opened: number;
    appOpenRate: number | null;
  }[];
  upgrade?: string;
}

export interface Analytics {
  configured: boolean;
  days: number;
  tier: Tier;
  total: number;
  sources: Sources;
  perLink: { slug: string; clicks: number }[];
  sampled?: boolean;
  countries?: { country: string | null; clicks: number }[];
  devices?: { device: string; clicks: number }[];
  platforms?: { platform: string | null; clicks: number }[];
  referrers?: { referrer: string | null; clicks: number }[];
  timeseries?: { day: string; clicks: number }[];
  hourly?: { hour: number; clicks: number }[];
  outcomes?: Outcomes;
  platformOutcomes?: { platform: string | null; outcome: string; clicks: number }[];
  upgrade?: string;
}

/** GET /api/analytics/escape: taps and outcomes per in-app browser × OS × platform × strategy. */
export type { EscapeCells };
export type EscapeCell = EscapeCells['cells'][number];

export interface AudienceList {
  count: number;
  contacts: Contact[];
}

export interface SocialMeta {
  appConfigured: boolean;
  appMode: 'development' | 'live';
  authUrl: string | null;
}

export interface AutomationStats {
  sent: number;
  failed: number;
  skipped: number;
  recipients: number;
  link: { shortUrl: string; clicks: number; opened: number; appOpenRate: number | null } | null;
}
