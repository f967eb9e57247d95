import { unwrap } from '../errors.js';
import { Pages } from '../pages.js';
import type { CreateLinkInput, Input, Link, ListLinksQuery, QrQuery, UpdateLinkInput } from '../types.js';
import { type Api, byId } from './api.js';

/** The page size `list` asks for unless told otherwise (the service allows 1 to 200). */
const DEFAULT_PAGE = 100;

/** /v1/links: the `links` operations, named after their operationIds (listLinks -> list). */
export class Links {
  constructor(private readonly api: Api) {}

  /** Live links, newest first, page by page: `for await (const page of linkhop.links.list())`. */
  list(query: ListLinksQuery & { pageSize?: number } = {}): Pages<Link> {
    const { pageSize = query.limit ?? DEFAULT_PAGE, ...filters } = query;
    return new Pages(async ({ limit, offset }) => {
      const result = await this.api.GET('/v1/links', { params: { query: { ...filters, limit, offset } } });
      return unwrap(result).links;
    }, pageSize);
  }

  async create(input: CreateLinkInput): Promise<Link> {
    return unwrap(await this.api.POST('/v1/links', { body: input }));
  }

  /** Up to 100 links; each result is the Link or the error body for that item, in order. */
  async bulkCreate(links: CreateLinkInput[]) {
    return unwrap(await this.api.POST('/v1/links/bulk', { body: { links } })).results;
  }

  async get(id: string): Promise<Link> {
    return unwrap(await this.api.GET('/v1/links/{id}', byId(id)));
  }

  /** A partial update; `null` clears a field. */
  async update(id: string, patch: UpdateLinkInput): Promise<Link> {
    return unwrap(await this.api.PATCH('/v1/links/{id}', { ...byId(id), body: patch }));
  }

  /** Archived links keep redirecting; they leave the list and become read-only. */
  async archive(id: string) {
    return unwrap(await this.api.POST('/v1/links/{id}/archive', byId(id)));
  }

  /** Brings an archived link back to the list (403 `link_cap_reached` when the plan is full). */
  async unarchive(id: string) {
    return unwrap(await this.api.POST('/v1/links/{id}/unarchive', byId(id)));
  }

  /** Clicks over the last 30 days and the app-open rate of each of up to 100 links, for list views. */
  async stats(ids: readonly string[]) {
    return unwrap(await this.api.GET('/v1/links/stats', { params: { query: { ids: ids.join(',') } } }));
  }

  /** The short URL as a QR code: SVG text, or PNG bytes with `format: 'png'`. */
  async qr(id: string, query: QrQuery & { format: 'png' }): Promise<ArrayBuffer>;
  async qr(id: string, query?: QrQuery): Promise<string>;
  async qr(id: string, query: QrQuery = {}): Promise<string | ArrayBuffer> {
    const init = { params: { path: { id }, query } };
    if (query.format === 'png') {
      return unwrap(await this.api.GET('/v1/links/{id}/qr', { ...init, parseAs: 'arrayBuffer' }));
    }
    return unwrap(await this.api.GET('/v1/links/{id}/qr', { ...init, parseAs: 'text' }));
  }

  /** An Ed25519-signed statement that the link exists and where it points. */
  async receipt(id: string) {
    return unwrap(await this.api.GET('/v1/links/{id}/receipt', byId(id)));
  }

  /** The destination's health and its last 20 checks, newest first. */
  async health(id: string) {
    return unwrap(await this.api.GET('/v1/links/{id}/health', byId(id)));
  }

  /** The link's A/B test (the running one, else its latest concluded one; `testId`: an earlier one). */
  async abTest(id: string, testId?: string) {
    const init = testId === undefined ? byId(id) : { params: { path: { id }, query: { test: testId } } };
    return unwrap(await this.api.GET('/v1/links/{id}/ab', init));
  }

  /** Ends the running A/B test: the variant (0-based) becomes the destination. */
  async promoteVariant(id: string, variant: number) {
    return unwrap(await this.api.POST('/v1/links/{id}/ab/promote', { ...byId(id), body: { variant } }));
  }

  async getPreview(id: string) {
    return unwrap(await this.api.GET('/v1/links/{id}/og', byId(id)));
  }

  async setPreview(id: string, preview: Input<'setLinkPreview'>) {
    return unwrap(await this.api.PUT('/v1/links/{id}/og', { ...byId(id), body: preview }));
  }

  async clearPreview(id: string) {
    return unwrap(await this.api.DELETE('/v1/links/{id}/og', byId(id)));
  }

  async scrapePreview(id: string) {
    return unwrap(await this.api.POST('/v1/links/{id}/og/scrape', byId(id)));
  }
}
