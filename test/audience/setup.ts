import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { audienceDb } from '../../src/audience/repo.js';
import type { Store } from '../../src/store/database.js';
import { up } from '../../src/store/migrations/011-audience.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';

/** Shared set-up of the audience and broadcast suites: a store with migration 011, links, contacts, a clock. */

export async function audienceStore(kind: StoreKind): Promise<TestStore> {
  const testStore = await createWithRetry(kind);
  // kind.create() runs only the registered migrations; 011 joins them once the lead lists it. A probe
  // query rather than introspection, which scans every PostgreSQL schema (see createWithRetry).
  try {
    await sql`select 1 from contacts limit 1`.execute(testStore.store.db);
  } catch {
    await up(testStore.store.db as never);
  }
  return testStore;
}

/**
 * Kysely's migrator introspects every schema of the database, and PostgreSQL raises "schema does not
 * exist" when a parallel suite drops its throwaway schema mid-scan. Only that race is retried.
 */
async function createWithRetry(kind: StoreKind, attempts = 4): Promise<TestStore> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await kind.create();
    } catch (error) {
      const raced = error instanceof Error && /schema "[^"]+" does not exist/.test(error.message);
      if (!raced || attempt >= attempts) throw error;
    }
  }
}

export async function makeLink(
  store: Store,
  orgId: string,
  slug: string,
  options: { host?: string; captureEmails?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await store.db
    .insertInto('links')
    .values({
      id,
      org_id: orgId,
      host: options.host ?? '',
      slug,
      destination: 'https://example.com/',
      platform_key: null,
      archived_at: null,
      created_at: at,
      updated_at: at,
      utm: null,
      routing: null,
      ab: null,
      sched: null,
      password_hash: null,
      folder_id: null,
      capture_emails: options.captureEmails === false ? 0 : 1,
    })
    .execute();
  return id;
}

/**
 * A clock (milliseconds, as ComposeOptions.now takes it) that steps at every reading, so "newest first"
 * never depends on two calls sharing a millisecond. One millisecond a step: the whole service reads it,
 * the capture limit's one-minute window too, which a test's few hundred readings must stay inside.
 */
export function stepClock(start = Date.parse('2026-03-01T10:00:00.000Z'), stepMs = 1): () => number {
  let at = start;
  return () => {
    at += stepMs;
    return at;
  };
}

export async function addContact(
  store: Store,
  orgId: string,
  fields: {
    email: string;
    createdAt: string;
    sourceSlug?: string | null;
    sourceLinkId?: string | null;
    country?: string | null;
    consentText?: string;
    unsubscribedAt?: string | null;
  },
): Promise<string> {
  const id = randomUUID();
  await audienceDb(store)
    .insertInto('contacts')
    .values({
      id,
      org_id: orgId,
      email: fields.email,
      consent_text: fields.consentText ?? 'I agree to receive emails from Org.',
      source_slug: fields.sourceSlug ?? null,
      source_link_id: fields.sourceLinkId ?? null,
      country: fields.country ?? null,
      unsubscribed_at: fields.unsubscribedAt ?? null,
      created_at: fields.createdAt,
    })
    .execute();
  return id;
}
