import { unwrap } from '../errors.js';
import type { Domain, Folder, Input, Pixel } from '../types.js';
import { type Api, byId } from './api.js';

/** The `folders` operations. */
export class Folders {
  constructor(private readonly api: Api) {}

  async create(input: Input<'createFolder'>) {
    return unwrap(await this.api.POST('/v1/folders', { body: input }));
  }

  async list(): Promise<Folder[]> {
    return unwrap(await this.api.GET('/v1/folders')).folders;
  }

  async rename(id: string, input: Input<'renameFolder'>) {
    return unwrap(await this.api.PATCH('/v1/folders/{id}', { ...byId(id), body: input }));
  }

  /** Its links stay, outside any folder. */
  async delete(id: string) {
    return unwrap(await this.api.DELETE('/v1/folders/{id}', byId(id)));
  }
}

/** The `domains` operations: custom hostnames, verified by a DNS TXT record. */
export class Domains {
  constructor(private readonly api: Api) {}

  /** The answer names the TXT record to publish. */
  async create(input: Input<'createDomain'>): Promise<Domain> {
    return unwrap(await this.api.POST('/v1/domains', { body: input }));
  }

  async list(): Promise<Domain[]> {
    return unwrap(await this.api.GET('/v1/domains')).domains;
  }

  /** Looks the TXT record up now; a 409 `domain_unverified` says what was expected and found. */
  async verify(id: string): Promise<Domain> {
    return unwrap(await this.api.POST('/v1/domains/{id}/verify', byId(id)));
  }

  async delete(id: string) {
    return unwrap(await this.api.DELETE('/v1/domains/{id}', byId(id)));
  }
}

/** The `pixels` operations. */
export class Pixels {
  constructor(private readonly api: Api) {}

  async create(input: Input<'createPixel'>): Promise<Pixel> {
    return unwrap(await this.api.POST('/v1/pixels', { body: input }));
  }

  async list(): Promise<Pixel[]> {
    return unwrap(await this.api.GET('/v1/pixels')).pixels;
  }

  async delete(id: string) {
    return unwrap(await this.api.DELETE('/v1/pixels/{id}', byId(id)));
  }
}
