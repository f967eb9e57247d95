import { unwrap } from '../errors.js';
import { Pages } from '../pages.js';
import type { Click, Query } from '../types.js';
import { type Api, byId } from './api.js';

const CLICKS_PAGE = 100;

/** The `analytics` operations: totals over a period, per-link stats and clicks, the raw export. */
export class AnalyticsApi {
  constructor(private readonly api: Api) {}

  /** Clicks, app-open outcomes and breakdowns over `days`, for the organization or one link, folder or tag. */
  async get(query: Query<'getAnalytics'> = {}) {
    return unwrap(await this.api.GET('/v1/analytics', { params: { query } }));
  }

  /** App-open outcomes per in-app browser × OS × platform × strategy: which escapes work where. */
  async escape(query: Query<'getEscapeCells'> = {}) {
    return unwrap(await this.api.GET('/v1/analytics/escape', { params: { query } }));
  }

  async linkStats(id: string) {
    return unwrap(await this.api.GET('/v1/links/{id}/stats', byId(id)));
  }

  async abStats(id: string) {
    return unwrap(await this.api.GET('/v1/links/{id}/ab-stats', byId(id)));
  }

  /** A link's recent clicks, newest first, page by page. */
  clicks(id: string, { pageSize = CLICKS_PAGE }: { pageSize?: number } = {}): Pages<Click> {
    return new Pages(async (page) => {
      const result = await this.api.GET('/v1/links/{id}/clicks', { params: { path: { id }, query: page } });
      return unwrap(result).clicks;
    }, pageSize);
  }

  /** Raw human clicks, oldest first, as the CSV (default) or JSON text the service streams. */
  async export(query: Query<'exportAnalytics'> = {}): Promise<string> {
    return unwrap(await this.api.GET('/v1/analytics/export', { params: { query }, parseAs: 'text' }));
  }
}
