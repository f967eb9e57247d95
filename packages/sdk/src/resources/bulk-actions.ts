import { unwrap } from '../errors.js';
import type { Input } from '../types.js';
import { type Api, byId } from './api.js';

/**
 * /v1/bulk-actions and /v1/links/export.csv (issue #34): one change to many links, and the links as
 * the CSV import reads them. Typed against packages/sdk/src/openapi.ts once it is regenerated with these
 * operations (`npm run sdk:generate`); the client exposes the group as `linkhop.bulkActions`.
 */
export class BulkActions {
  constructor(private readonly api: Api) {}

  /**
   * Tags, untags, moves, archives or unarchives the links a selection names (`{ids}`) or matches
   * (`{filter}`). Up to 100 links: done, with each link's outcome; more: a queued job to follow with `get`.
   */
  async create(input: Input<'createBulkAction'>) {
    return unwrap(await this.api.POST('/v1/bulk-actions', { body: input }));
  }

  /** A job's progress: `processed` of `total`, and the failed links. */
  async get(id: string) {
    return unwrap(await this.api.GET('/v1/bulk-actions/{id}', byId(id)));
  }

  /** The links named by `ids` or matching the filters, as CSV text (`url,slug,tags,title,created_at`). */
  async export(query: { ids?: readonly string[]; q?: string; tag?: string; folderId?: string } = {}) {
    const { ids, ...filters } = query;
    const params = { query: { ...filters, ...(ids ? { ids: ids.join(',') } : {}) } };
    return unwrap(await this.api.GET('/v1/links/export.csv', { params, parseAs: 'text' }));
  }
}
