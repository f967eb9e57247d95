import { type Expression, sql } from 'kysely';

/**
 * Orders the jobs many organizations queue (imports, bulk actions) the way workers take them: the
 * organization served longest ago first, then its job served longest ago, then the oldest, so one
 * organization's long queue never starves another's. ISO times sort as text; '' (never served) sorts
 * before any. The table needs `org_id`, `served_at`, `created_at` and `id` columns.
 */
export function orderFairly<Query extends { orderBy(expression: Expression<string>): Query }>(
  query: Query,
  table: 'imports' | 'bulk_actions',
): Query {
  const column = (name: string) => sql.ref<string>(`${table}.${name}`);
  const orgServed = sql<string>`coalesce((select max(o.served_at) from ${sql.table(table)} o where o.org_id = ${column('org_id')}), '')`;
  return query
    .orderBy(orgServed)
    .orderBy(sql<string>`coalesce(${column('served_at')}, '')`)
    .orderBy(column('created_at'))
    .orderBy(column('id'));
}
