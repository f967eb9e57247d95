// A click writer in a process of its own, for the kill -9 test (kill-writer.test.ts): the built click
// buffer replays the spill folder's segments into ClickHouse through the built live store, as an instance
// starting after an outage does. With HOLD_AFTER_INSERT=1 it prints `inserted <batch id>` once ClickHouse
// has answered a batch's insert and then waits, before the buffer acknowledges it (removes the segment):
// the test kills it there. Without it, it replays everything, prints `done <json stats>` and exits.
import { openLiveClickhouse } from '../../../dist/analytics/clickhouse/live.js';
import { createClickBuffer } from '../../../dist/analytics/write/click-buffer.js';
import { createClickSpill } from '../../../dist/analytics/write/click-spill.js';
import { migrateToLatest, openStore } from '../../../dist/store/database.js';

const [url, spillDir] = process.argv.slice(2);
const hold = process.env.HOLD_AFTER_INSERT === '1';
// The writes read the main database for the links' group stamps (none here: every link stamps no group).
const main = openStore('sqlite::memory:');
await migrateToLatest(main);
const live = openLiveClickhouse(url, main);
const logger = { warn: () => {}, error: (details, message) => console.error(message, details) };
const buffer = createClickBuffer({
  store: main,
  logger,
  spill: createClickSpill({ dir: spillDir }),
  idEveryBatch: true,
  async write(clicks, batchId) {
    const applied = await live.store.writeClicks(clicks, batchId);
    if (hold) {
      console.log(`inserted ${batchId} ${applied}`);
      await new Promise(() => {});
    }
    return applied;
  },
});
await buffer.flush();
console.log(`done ${JSON.stringify(buffer.stats())}`);
await live.close();
await main.close();
