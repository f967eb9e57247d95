import { clickColumns, clickId, oldestFirst, type StoredClick, unpackBlock } from '../click-blocks.js';
import { type ClickSource, type ExportRow, num, type Scope } from '../model.js';
import type { ClickRepo, NewestCursor, OldestCursor } from './click-repo.js';

/**
 * The two reads of raw clicks, over packed blocks. Blocks of one link can overlap in time (two instances
 * writing at once), so neither read trusts block order alone: each merges by click time, and stops reading
 * blocks only when no later block can hold a click that belongs before what it has. Their SQL is in
 * click-repo.ts.
 */

/** Blocks fetched per query. */
const BLOCKS_PER_READ = 32;
/** Tap ids per outcome lookup (well under SQLite's parameter limit). */
const TAPS_PER_LOOKUP = 500;

/** A visit to an expired link is `expired`; else its tap's reported outcome, when there is one. */
const outcomeOfClick = (click: StoredClick, reported: Map<string, string>): string | null =>
  click.expired ? 'expired' : click.tapId === null ? null : (reported.get(click.tapId) ?? null);

const newestFirst = (a: StoredClick, b: StoredClick): number => oldestFirst(b, a);

export interface ListedClick {
  id: string;
  at: number;
  source_app: string | null;
  country: string | null;
  city: string | null;
  device: string;
  tap_id: string | null;
  source: ClickSource;
  outcome: string | null;
}

export function createClickReads(repo: ClickRepo) {
  /** The reported outcome of each tap id given (taps without one are absent). */
  async function outcomes(tapIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let i = 0; i < tapIds.length; i += TAPS_PER_LOOKUP) {
      const rows = await repo.tapOutcomes(tapIds.slice(i, i + TAPS_PER_LOOKUP));
      for (const row of rows) found.set(row.tap_id, row.outcome);
    }
    return found;
  }

  const tapIdsOf = (clicks: readonly StoredClick[]): string[] =>
    clicks.flatMap((click) => (click.tapId === null ? [] : [click.tapId]));

  return {
    /** One link's human clicks since `fromMs`, newest first, each with its tap's outcome when reported. */
    async clicks(linkId: string, fromMs: number, limit: number, offset: number): Promise<ListedClick[]> {
      const want = offset + limit;
      // The newest `want` clicks seen so far, newest first.
      let kept: StoredClick[] = [];
      let after: NewestCursor | null = null;
      read: for (;;) {
        // Block headers first, without their clicks: how many humans each holds decides which blocks'
        // data is worth fetching, so a busy link's large blocks are not read 32 at a time for 50 clicks.
        const heads = await repo.blockHeads(linkId, fromMs, after, BLOCKS_PER_READ);
        for (let next = 0; next < heads.length; ) {
          // The next blocks whose humans cover what is still missing (one at least, to settle overlaps).
          let missing = want - kept.length;
          let end = next;
          do missing -= num(heads[end]?.humans ?? 0);
          while (++end < heads.length && missing > 0);
          const chosen = heads.slice(next, end);
          const data = await repo.blockData(linkId, chosen);
          for (const block of chosen) {
            const lastAt = num(block.last_at);
            // Every click of this block and of the ones after it is older than the last one kept.
            const floor = kept[want - 1];
            if (floor && lastAt < floor.at) break read;
            const id = num(block.id);
            for (const click of unpackBlock(id, num(block.first_at), data.get(id) ?? '[]')) {
              if (!click.bot && click.at >= fromMs) kept.push(click);
            }
            kept.sort(newestFirst);
            if (kept.length > want) kept = kept.slice(0, want);
            after = { lastAt, id };
          }
          next = end;
        }
        if (heads.length < BLOCKS_PER_READ) break;
      }
      const page = kept.slice(offset, want);
      const reported = await outcomes(tapIdsOf(page));
      return page.map((click) => ({
        id: clickId(click),
        at: click.at,
        source_app: click.sourceApp,
        country: click.country,
        city: click.city,
        device: click.device,
        tap_id: click.tapId,
        source: click.source,
        outcome: outcomeOfClick(click, reported),
      }));
    },

    /** The scope's human clicks since `fromMs` in time order, a page at a time (memory stays flat). */
    async *exportPages(scope: Scope, fromMs: number, pageSize = 5000): AsyncGenerator<ExportRow[]> {
      // Unpacked clicks not yet written, with their link's slug; oldest first once sorted.
      let pending: (StoredClick & { linkId: string; slug: string })[] = [];
      async function* release(before: number): AsyncGenerator<ExportRow[]> {
        pending.sort(oldestFirst);
        let ready = pending.findIndex((click) => click.at >= before);
        if (ready === -1) ready = pending.length;
        const out = pending.slice(0, ready);
        pending = pending.slice(ready);
        for (let i = 0; i < out.length; i += pageSize) {
          const chunk = out.slice(i, i + pageSize);
          const reported = await outcomes(tapIdsOf(chunk));
          yield chunk.map((click) => ({
            id: clickId(click),
            at: click.at,
            link_id: click.linkId,
            slug: click.slug,
            ...clickColumns(click),
            outcome: outcomeOfClick(click, reported),
          }));
        }
      }

      let after: OldestCursor | null = null;
      for (;;) {
        const blocks = await repo.exportBlocks(scope, fromMs, after, BLOCKS_PER_READ);
        for (const block of blocks) {
          const firstAt = num(block.first_at);
          // Blocks come by first click: whatever is older than this block's first click is final.
          yield* release(firstAt);
          for (const click of unpackBlock(num(block.id), firstAt, block.data)) {
            if (!click.bot && click.at >= fromMs)
              pending.push({ ...click, linkId: block.link_id, slug: block.slug });
          }
          after = { firstAt, id: num(block.id) };
        }
        if (blocks.length < BLOCKS_PER_READ) break;
      }
      yield* release(Number.POSITIVE_INFINITY);
    },
  };
}
