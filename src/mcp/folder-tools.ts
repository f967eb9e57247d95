import { folderBody } from '../folders/schema.js';
import { idArgument, type ToolSpec } from './tool-spec.js';

/** Folders, which group links (tags are a link's own field: search_links and set_link_tags). */

const folderId = idArgument('folder');

export const folderTools: ToolSpec[] = [
  {
    name: 'list_folders',
    title: 'List folders',
    description:
      'The organization’s folders as `{folders: [...]}`, each with its id, name and how many links it ' +
      'holds. Put a link in one with update_link’s `folderId`; list its links with search_links’ `folderId`.',
    input: folderBody.pick({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
    method: 'GET',
    path: '/folders',
    send: 'query',
  },
  {
    name: 'create_folder',
    title: 'Create a folder',
    description: 'Creates a folder named `name` (1 to 100 characters) and answers it with its id.',
    input: folderBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    method: 'POST',
    path: '/folders',
    send: 'body',
  },
  {
    name: 'rename_folder',
    title: 'Rename a folder',
    description: 'Renames the folder `id` to `name` (1 to 100 characters).',
    input: folderBody.extend(folderId.shape),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    method: 'PATCH',
    path: '/folders/{id}',
    send: 'body',
  },
  {
    name: 'delete_folder',
    title: 'Delete a folder',
    description:
      'Deletes the folder `id`. Its links are kept (and keep redirecting); they are only no longer in a folder.',
    input: folderId,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    method: 'DELETE',
    path: '/folders/{id}',
    send: 'none',
  },
];
