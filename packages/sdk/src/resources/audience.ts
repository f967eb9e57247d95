import { unwrap } from '../errors.js';
import { Pages } from '../pages.js';
import type { Contact, Input } from '../types.js';
import { type Api, byId } from './api.js';

const CONTACTS_PAGE = 100;

/** The `audience` operations: contacts captured with consent. */
export class Audience {
  constructor(private readonly api: Api) {}

  /** Contacts, page by page. */
  list({ pageSize = CONTACTS_PAGE }: { pageSize?: number } = {}): Pages<Contact> {
    return new Pages(async (page) => {
      return unwrap(await this.api.GET('/v1/audience', { params: { query: page } })).contacts;
    }, pageSize);
  }

  async get(id: string) {
    return unwrap(await this.api.GET('/v1/audience/{id}', byId(id)));
  }

  async delete(id: string) {
    return unwrap(await this.api.DELETE('/v1/audience/{id}', byId(id)));
  }

  /** The whole list as CSV text, oldest first. */
  async export(): Promise<string> {
    return unwrap(await this.api.GET('/v1/audience/export.csv', { parseAs: 'text' }));
  }
}

/** The `bio` operations: the organization's link-in-bio page. */
export class Bio {
  constructor(private readonly api: Api) {}

  async get() {
    return unwrap(await this.api.GET('/v1/bio')).page;
  }

  async save(page: Input<'saveBio'>) {
    return unwrap(await this.api.PUT('/v1/bio', { body: page }));
  }

  async delete() {
    return unwrap(await this.api.DELETE('/v1/bio'));
  }

  async replaceBlocks(blocks: Input<'replaceBioBlocks'>) {
    return unwrap(await this.api.PUT('/v1/bio/blocks', { body: blocks }));
  }

  async stats() {
    return unwrap(await this.api.GET('/v1/bio/stats'));
  }
}
