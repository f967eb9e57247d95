import type { Insertable, Selectable } from 'kysely';
import type { Store } from '../store/database.js';
import type { SigningKeyTable } from '../store/schema.js';

/** The receipts' signing key row: one per purpose, shared by every instance. */
export function createReceiptRepo(store: Store) {
  const { db } = store;

  return {
    storedKey(): Promise<Selectable<SigningKeyTable> | undefined> {
      return db.selectFrom('signing_keys').selectAll().where('purpose', '=', 'receipts').executeTakeFirst();
    },

    /** Does nothing when a key for the purpose is already stored: the first writer wins. */
    async insertKeyIfAbsent(row: Insertable<SigningKeyTable>): Promise<void> {
      await db
        .insertInto('signing_keys')
        .values(row)
        .onConflict((conflict) => conflict.column('purpose').doNothing())
        .execute();
    },

    storedKeyOrThrow(): Promise<Selectable<SigningKeyTable>> {
      return db
        .selectFrom('signing_keys')
        .selectAll()
        .where('purpose', '=', 'receipts')
        .executeTakeFirstOrThrow();
    },
  };
}

export type ReceiptRepo = ReturnType<typeof createReceiptRepo>;
