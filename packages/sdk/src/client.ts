import createClient from 'openapi-fetch';
import { unwrap } from './errors.js';
import type { paths } from './openapi.js';
import { AnalyticsApi } from './resources/analytics.js';
import type { Api } from './resources/api.js';
import { Audience, Bio } from './resources/audience.js';
import { BulkActions } from './resources/bulk-actions.js';
import { Links } from './resources/links.js';
import { Domains, Folders, Pixels } from './resources/organize.js';
import { Sso } from './resources/sso.js';
import { AuditLog, Imports, Keys, Members } from './resources/team.js';
import { Webhooks } from './resources/webhooks.js';
import { DEFAULT_RETRY, type RetryOptions, retryingFetch } from './retry.js';
import type { Me } from './types.js';

export interface LinkhopOptions {
  /** An `svc_` API key (dashboard settings, or `linkhop key create ORG_ID`). */
  apiKey: string;
  /** The service's origin, e.g. `https://go.example.com`. */
  baseUrl: string;
  /** Retries on 429 and 503; see RetryOptions for the defaults. */
  retry?: Partial<RetryOptions>;
  /** The fetch to send with (a proxy agent, a test double); default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * The linkhop API, one method group per resource. Every method answers the typed data or throws a
 * LinkhopError; `raw` is the typed openapi-fetch client for any operation without a method here.
 */
export class Linkhop {
  readonly raw: Api;
  readonly links: Links;
  readonly analytics: AnalyticsApi;
  readonly webhooks: Webhooks;
  readonly folders: Folders;
  readonly domains: Domains;
  readonly pixels: Pixels;
  readonly audience: Audience;
  readonly bio: Bio;
  readonly keys: Keys;
  readonly members: Members;
  readonly auditLog: AuditLog;
  readonly imports: Imports;
  readonly bulkActions: BulkActions;
  readonly sso: Sso;

  constructor(options: LinkhopOptions) {
    if (!options.apiKey) throw new TypeError('Linkhop: apiKey is required (an svc_ key)');
    if (!/^https?:\/\//.test(options.baseUrl ?? '')) {
      throw new TypeError('Linkhop: baseUrl must be the http(s) origin of the service');
    }
    const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.raw = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch(send, { ...DEFAULT_RETRY, ...options.retry }),
    });
    this.links = new Links(this.raw);
    this.analytics = new AnalyticsApi(this.raw);
    this.webhooks = new Webhooks(this.raw);
    this.folders = new Folders(this.raw);
    this.domains = new Domains(this.raw);
    this.pixels = new Pixels(this.raw);
    this.audience = new Audience(this.raw);
    this.bio = new Bio(this.raw);
    this.keys = new Keys(this.raw);
    this.members = new Members(this.raw);
    this.auditLog = new AuditLog(this.raw);
    this.imports = new Imports(this.raw);
    this.bulkActions = new BulkActions(this.raw);
    this.sso = new Sso(this.raw);
  }

  /** The key's organization, its plan and features (getMe). */
  async me(): Promise<Me> {
    return unwrap(await this.raw.GET('/v1/me'));
  }
}
