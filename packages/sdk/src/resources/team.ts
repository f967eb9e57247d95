import { unwrap } from '../errors.js';
import type { Input, Query } from '../types.js';
import { type Api, byId } from './api.js';

const byUser = (userId: string) => ({ params: { path: { userId } } });

/** The `keys` operations (owners and admins): named keys with scopes, shown once when made. */
export class Keys {
  constructor(private readonly api: Api) {}

  async list() {
    return unwrap(await this.api.GET('/v1/keys')).keys;
  }

  async create(input: Input<'createKey'>) {
    return unwrap(await this.api.POST('/v1/keys', { body: input }));
  }

  async revoke(id: string) {
    return unwrap(await this.api.DELETE('/v1/keys/{id}', byId(id)));
  }
}

/** The `members` and `invites` operations: who works in the organization, with which role. */
export class Members {
  constructor(private readonly api: Api) {}

  async list() {
    return unwrap(await this.api.GET('/v1/members')).members;
  }

  /** The last owner can be neither demoted nor removed (409 `last_owner`). */
  async update(userId: string, input: Input<'updateMember'>) {
    return unwrap(await this.api.PATCH('/v1/members/{userId}', { ...byUser(userId), body: input }));
  }

  async remove(userId: string) {
    return unwrap(await this.api.DELETE('/v1/members/{userId}', byUser(userId)));
  }

  /** The accept link goes to the invited address only (mailed, or in the server log without SMTP); it works once, for 7 days. */
  async invite(input: Input<'createInvite'>) {
    return unwrap(await this.api.POST('/v1/invites', { body: input }));
  }

  async invites() {
    return unwrap(await this.api.GET('/v1/invites')).invites;
  }

  async revokeInvite(id: string) {
    return unwrap(await this.api.DELETE('/v1/invites/{id}', byId(id)));
  }
}

/** The `audit-log` operations: every change by a person or a key, newest first. */
export class AuditLog {
  constructor(private readonly api: Api) {}

  async list(query: Query<'listAuditLog'> = {}) {
    return unwrap(await this.api.GET('/v1/audit-log', { params: { query } }));
  }

  async export(query: Query<'exportAuditLog'> = {}): Promise<string> {
    return unwrap(await this.api.GET('/v1/audit-log/export', { params: { query }, parseAs: 'text' }));
  }
}

/** The `imports` operations: links brought from another shortener or a CSV file, off the request path. */
export class Imports {
  constructor(private readonly api: Api) {}

  /** 202 `{id}`; follow it with `get(id)` until its status is `done` or `failed`. */
  async start(input: Input<'createImport'>) {
    return unwrap(await this.api.POST('/v1/imports', { body: input }));
  }

  async get(id: string) {
    return unwrap(await this.api.GET('/v1/imports/{id}', byId(id)));
  }

  async list() {
    return unwrap(await this.api.GET('/v1/imports'));
  }
}
