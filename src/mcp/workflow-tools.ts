import { z } from 'zod';
import { abReadoutQuery, promoteBody } from '../links/ab-schema.js';
import { BULK_SYNC_MAX, bulkActionBody } from '../links/bulk-schema.js';
import { idArgument, type ToolSpec } from './tool-spec.js';

/** Work on many links or on a link's experiment: A/B readouts and promotion, bulk actions, the domains. */

const linkId = idArgument('link');
const READ = { readOnlyHint: true, openWorldHint: false } as const;

export const workflowTools: ToolSpec[] = [
  {
    name: 'get_ab_test',
    title: "Read a link's A/B test",
    description:
      'Answers the A/B test of the link `id`: the running one, else the latest concluded (`test` reads an ' +
      'earlier concluded one). Per variant: its URL, human visits, app-open outcomes, the open rate and ' +
      '`probabilityBest`; plus the window counted and the concluded tests. Promote the best with ' +
      'promote_ab_variant. Needs the abTesting power; `no_ab_test` when the link never had one.',
    input: abReadoutQuery.extend(linkId.shape),
    annotations: READ,
    method: 'GET',
    path: '/links/{id}/ab',
    send: 'query',
  },
  {
    name: 'promote_ab_variant',
    title: 'Promote an A/B variant',
    description:
      'Makes `variant` (its 0-based index in the link’s `ab`) the destination of the link `id` and ends ' +
      'its test; the readout stays readable with get_ab_test. Answers the link and the concluded test. ' +
      'Read get_ab_test first: promote only a variant whose probabilityBest is convincing.',
    input: promoteBody.extend(linkId.shape),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    method: 'POST',
    path: '/links/{id}/ab/promote',
    send: 'body',
  },
  {
    name: 'bulk_update_links',
    title: 'Change many links at once',
    description:
      'Applies one `action` (add_tags, remove_tags, move to a folder or out of any, archive, unarchive) ' +
      'to a `selection`: link `ids`, or a `filter` with search_links’ filters. Up to ' +
      `${BULK_SYNC_MAX} links change at once and the answer lists each link’s outcome; more run as a job ` +
      'whose `id` get_bulk_action follows. Links are never deleted: archived links keep redirecting.',
    input: bulkActionBody,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    method: 'POST',
    path: '/bulk-actions',
    send: 'body',
  },
  {
    name: 'get_bulk_action',
    title: 'Follow a bulk action',
    description:
      'Answers the bulk action `id` started by bulk_update_links: its status (queued, running, done, ' +
      'failed), how many links it has processed, changed, left unchanged and failed, and the failed links.',
    input: idArgument('bulk action'),
    annotations: READ,
    method: 'GET',
    path: '/bulk-actions/{id}',
    send: 'none',
  },
  {
    name: 'list_domains',
    title: 'List custom domains',
    description:
      'The organization’s custom domains as `{domains: [...]}`, each with its hostname and whether it is ' +
      'verified. A link on a verified domain is created with create_link’s `hostname`.',
    input: z.object({}),
    annotations: READ,
    method: 'GET',
    path: '/domains',
    send: 'query',
  },
];
