import type { ClickInput } from './click-input.js';

/**
 * Lanes of links for the batch writer on PostgreSQL. Two batches written at once used to be two slices
 * of the same backlog: both held today's rollup rows of the same links, so the second transaction waited
 * on the first one's row locks and the database upserted one batch at a time. A lane holds a fixed share
 * of the links (by a hash of the link id), every batch holds the clicks of one lane, and one batch per lane
 * is in flight: concurrent batches never touch the same link's rows. The organization's and groups' rows,
 * which every lane touches, are upserted last in each batch (bulk-insert.ts), so they are locked only
 * until that batch commits. Lanes change only who waits for whom: rows still go in key order in every
 * batch, so nothing can deadlock, whatever a batch holds (a spilled segment holds every lane's links).
 */

/** The lane of a link: FNV-1a over its id, so ids sharing a prefix or a suffix still spread. */
export function laneOf(linkId: string, lanes: number): number {
  if (lanes <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < linkId.length; i++) hash = Math.imul(hash ^ linkId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/**
 * The oldest `limit` clicks of `lane` out of `pending`, and what stays, in its order. One pass over the
 * backlog per batch: a few milliseconds at the memory bound, against seconds to write the batch.
 */
export function takeLane(
  pending: readonly ClickInput[],
  lane: number,
  lanes: number,
  limit: number,
): { taken: ClickInput[]; rest: ClickInput[] } {
  if (lanes <= 1) return { taken: pending.slice(0, limit), rest: pending.slice(limit) };
  const taken: ClickInput[] = [];
  const rest: ClickInput[] = [];
  for (const click of pending) {
    if (taken.length < limit && laneOf(click.linkId, lanes) === lane) taken.push(click);
    else rest.push(click);
  }
  return { taken, rest };
}
