import { randomBytes, randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/** Kysely view of the domains table; the lead adds it to `Database` in src/store/schema.ts. */
export interface DomainTable {
  id: string;
  org_id: string;
  /** Lower-case ASCII (punycode), no trailing dot: the form a Host header is compared in. */
  hostname: string;
  /** The secret part of the TXT value `linkhop-verify=<token>` the organization publishes. */
  token: string;
  /** Null until the TXT record was seen; only verified domains take links and answer redirects. */
  verified_at: string | null;
  created_at: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

/** One hostname used by links of more than one organization before domains were owned. */
export interface DomainConflict {
  hostname: string;
  ownerOrgId: string;
  others: { orgId: string; linkId: string; slug: string }[];
}

// Domains as owned, verified resources (issue 17). A hostname is verified by one organization at most
// (a partial unique index: pending claims do not block the real owner); an organization adds it once.
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('domains')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('hostname', 'varchar(253)', (col) => col.notNull())
    .addColumn('token', 'varchar(64)', (col) => col.notNull())
    .addColumn('verified_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('domains_org_hostname')
    .on('domains')
    .columns(['org_id', 'hostname'])
    .unique()
    .execute();
  await db.schema
    .createIndex('domains_verified_hostname')
    .on('domains')
    .column('hostname')
    .unique()
    .where(sql.ref('verified_at'), 'is not', null)
    .execute();

  // Every hostname already in use goes to the organization whose link on it is the oldest, verified: its
  // links keep redirecting. Other organizations' links there keep redirecting too (the redirect looks links
  // up by host and slug), but they cannot add links on it; they are listed in the log.
  const rows = await db
    .selectFrom('links')
    .select(['id', 'org_id', 'host', 'slug'])
    .where('host', '!=', '')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const owners = new Map<string, string>();
  const conflicts = new Map<string, DomainConflict>();
  const now = new Date().toISOString();
  for (const row of rows as { id: string; org_id: string; host: string; slug: string }[]) {
    const owner = owners.get(row.host);
    if (owner === undefined) {
      owners.set(row.host, row.org_id);
      await db
        .insertInto('domains')
        .values({
          id: randomUUID(),
          org_id: row.org_id,
          hostname: row.host,
          token: randomBytes(16).toString('hex'),
          verified_at: now,
          created_at: now,
        })
        .execute();
    } else if (owner !== row.org_id) {
      const conflict = conflicts.get(row.host) ?? { hostname: row.host, ownerOrgId: owner, others: [] };
      conflict.others.push({ orgId: row.org_id, linkId: row.id, slug: row.slug });
      conflicts.set(row.host, conflict);
    }
  }
  // A migration has no logger: one JSON line on stderr, in the shape the service's pino lines have.
  for (const conflict of conflicts.values()) {
    process.stderr.write(
      `${JSON.stringify({
        level: 40,
        time: Date.now(),
        migration: '014-domains',
        msg: 'hostname used by several organizations: given to the first, the others keep redirecting',
        ...conflict,
      })}\n`,
    );
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('domains').execute();
}
