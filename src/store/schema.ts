import type { Generated } from 'kysely';

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
}

export interface LinkTable {
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
}

export interface Database {
  engine_links: EngineLinkTable;
  organizations: OrganizationTable;
  links: LinkTable;
}
