import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { isUniqueViolation } from '../../src/store/database.js';
import { down, up } from '../../src/store/migrations/011-audience.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { addContact, audienceStore } from './setup.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`migration 011-audience on ${kind.name}`, () => {
    let testStore: TestStore;
    beforeEach(async () => {
      testStore = await audienceStore(kind);
    });
    afterEach(async () => {
      await testStore.dispose();
    });

    it('keeps one contact per organization and address, and the same address in two organizations', async () => {
      const { store } = testStore;
      const one = await makeOrg(store, 'hero');
      const two = await makeOrg(store, 'hero');
      const createdAt = new Date().toISOString();
      await addContact(store, one.orgId, { email: 'fan@example.com', createdAt });
      await addContact(store, two.orgId, { email: 'fan@example.com', createdAt });
      const again = addContact(store, one.orgId, { email: 'fan@example.com', createdAt });
      await expect(again).rejects.toSatisfy(isUniqueViolation);
      const rows = await audienceDb(store).selectFrom('contacts').select('org_id').execute();
      expect(rows).toHaveLength(2);
    });

    it('rolls back and forward', async () => {
      const db = testStore.store.db as never;
      await down(db);
      await up(db);
      expect(
        await audienceDb(testStore.store).selectFrom('broadcast_recipients').selectAll().execute(),
      ).toEqual([]);
    });
  });
}
