import { unwrap } from '../errors.js';
import type { Input } from '../types.js';
import type { Api } from './api.js';

/**
 * /v1/org/sso: the organization's OpenID Connect provider for the dashboard's sign-in (owners' keys with
 * `all`). The client secret is write-only: answers say `hasSecret`, never the secret.
 */
export class Sso {
  constructor(private readonly api: Api) {}

  /** The configuration (or `configured: false`), with the redirect URI to register at the provider. */
  async get() {
    return unwrap(await this.api.GET('/v1/org/sso'));
  }

  /** Sets issuer, client, allowed domain, default role and whether members must use SSO. */
  async put(input: Input<'putSsoConfig'>) {
    return unwrap(await this.api.PUT('/v1/org/sso', { body: input }));
  }

  /** Removes single sign-on: everyone signs in with a password again. */
  async remove() {
    return unwrap(await this.api.DELETE('/v1/org/sso'));
  }
}
