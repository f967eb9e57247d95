import { createLinkBody, listQuery, updateLinkBody } from '../links/schema.js';
import { idArgument, type ToolSpec } from './tool-spec.js';

/** Links: create, read, edit, archive and search them, and their tags. */

const linkId = idArgument('link');
const READ = { readOnlyHint: true, openWorldHint: false } as const;

export const linkTools: ToolSpec[] = [
  {
    name: 'create_link',
    title: 'Create a short link',
    description:
      'Creates a short link to `url` (an http(s) URL) and answers the new Link, whose `shortUrl` is the ' +
      'address to share. Everything else is optional: `slug` picks the path (otherwise one is generated), ' +
      '`tags` and `folderId` organize it, `utm` adds campaign parameters, `expiresAt`/`maxClicks` end it, ' +
      '`fallbackUrl` catches visits while the destination is down. Powers the plan lacks answer an error.',
    input: createLinkBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    method: 'POST',
    path: '/links',
    send: 'body',
  },
  {
    name: 'get_link',
    title: 'Get a link',
    description:
      'Answers one Link by its id: its destination, short URL, tags, folder, settings, whether it is ' +
      'expired or archived, and its destination health.',
    input: linkId,
    annotations: READ,
    method: 'GET',
    path: '/links/{id}',
    send: 'none',
  },
  {
    name: 'update_link',
    title: 'Update a link',
    description:
      'Changes the fields given on the link `id` and answers the updated Link; fields left out stay as ' +
      'they are, `null` clears a field, and an array or object replaces the old one whole. Changing ' +
      '`url` re-points the short link: visitors go to the new destination from now on.',
    input: updateLinkBody.extend(linkId.shape),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    method: 'PATCH',
    path: '/links/{id}',
    send: 'body',
  },
  {
    name: 'archive_link',
    title: 'Archive a link',
    description:
      'Archives the link `id`: it leaves the live list and stops counting against the plan, and its ' +
      'short URL keeps redirecting (published links never break). unarchive_link brings it back.',
    input: linkId,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    method: 'POST',
    path: '/links/{id}/archive',
    send: 'none',
  },
  {
    name: 'unarchive_link',
    title: 'Restore an archived link',
    description:
      'Restores the archived link `id` to the live list (it counts against the plan’s link cap again).',
    input: linkId,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    method: 'POST',
    path: '/links/{id}/unarchive',
    send: 'none',
  },
  {
    name: 'search_links',
    title: 'Search links',
    description:
      'Lists links, newest first, as `{links: [...]}`. Every filter is optional and they combine: `q` ' +
      'matches part of the slug or the destination, `tag` an exact tag, `folderId` a folder, ' +
      '`archived=true` lists archived links instead, `expired` and `health` (ok, down, unknown) filter ' +
      'by state. Pages of `limit` (at most 200) from `offset`.',
    input: listQuery,
    annotations: READ,
    method: 'GET',
    path: '/links',
    send: 'query',
  },
  {
    name: 'set_link_tags',
    title: "Set a link's tags",
    description:
      'Replaces the tags of the link `id` with `tags` (at most 20, each 1 to 64 characters; `[]` or ' +
      '`null` removes them all) and answers the updated Link. To find links by tag, use search_links with `tag`.',
    input: updateLinkBody.pick({ tags: true }).required().extend(linkId.shape),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    method: 'PATCH',
    path: '/links/{id}',
    send: 'body',
  },
];
