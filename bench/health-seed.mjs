// The health benches' data, written straight into a migrated SQLite database (far faster than the API):
// one organization, `destinations` destinations all due at `nowIso`, and `links` links spread over them.
import { randomUUID } from 'node:crypto';

/**
 * `urlOf(i)` and `hostOf(i)` name destination i (its URL and the `host:port` the checker leases);
 * `destinationKey` is the build's own (health/key.js), so the rows match what the service writes.
 */
export function seedDestinations(sqlite, { links, destinations, urlOf, hostOf, destinationKey, nowIso }) {
  const orgId = randomUUID();
  sqlite
    .prepare('insert into organizations (id, name, tier, created_at) values (?, ?, ?, ?)')
    .run(orgId, 'Bench', 'legend', nowIso);
  const insertLink = sqlite.prepare(
    'insert into links (id, org_id, host, slug, destination, destination_key, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertDestination = sqlite.prepare(
    'insert into destinations (id, url, host, next_check_at) values (?, ?, ?, ?)',
  );
  const keys = Array.from({ length: destinations }, (_, i) => destinationKey(urlOf(i)));
  sqlite.transaction(() => {
    for (let i = 0; i < destinations; i++) insertDestination.run(keys[i], urlOf(i), hostOf(i), nowIso);
    for (let i = 0; i < links; i++) {
      const d = i % destinations;
      insertLink.run(randomUUID(), orgId, '', `s${i.toString(36)}`, urlOf(d), keys[d], nowIso, nowIso);
    }
  })();
}
