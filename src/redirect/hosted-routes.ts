import type { FastifyInstance } from 'fastify';
import type { PlatformTable } from '../core/platforms/index.js';
import { type CompiledDestination, compileDestination } from '../core/resolve.js';
import { sendNotFoundPage } from '../http/html.js';
import type { LinkRepo } from '../links/repo.js';
import type { LruCache } from './lru-cache.js';
import type { VisitResponder } from './respond.js';

const SLUG_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;

export interface HostedRedirectDeps {
  links: LinkRepo;
  table: PlatformTable;
  respondToVisit: VisitResponder;
  /** `${host}\n${slug}` -> compiled link; writes invalidate their entry. */
  cache: LruCache<string, CompiledDestination>;
  /** The BASE_URL host: requests on it look up links without a custom hostname. */
  defaultHost: string;
}

/** `GET /{slug}` on the default host and on custom hostnames. No hooks: this is the hot path. */
export async function hostedRedirectRoutes(app: FastifyInstance, deps: HostedRedirectDeps): Promise<void> {
  app.get<{ Params: { slug: string } }>('/:slug', async (request, reply) => {
    const slug = request.params.slug;
    const host = normaliseHost(request.headers.host, deps.defaultHost);
    const key = `${host}\n${slug}`;
    let compiled = deps.cache.get(key);
    if (compiled === undefined) {
      if (!SLUG_PATTERN.test(slug)) return sendNotFoundPage(reply);
      // A custom host first, then the default host: a link with a hostname answers on that host only.
      const row =
        (host === '' ? undefined : await deps.links.findForRedirect(host, slug)) ??
        (await deps.links.findForRedirect('', slug));
      if (!row) return sendNotFoundPage(reply);
      compiled = compileDestination(deps.table, row.destination);
      deps.cache.set(key, compiled);
    }
    return deps.respondToVisit(request, reply, compiled);
  });
}

function normaliseHost(header: string | undefined, defaultHost: string): string {
  if (!header) return '';
  const host = header.toLowerCase().replace(/:\d+$/, '');
  return host === defaultHost ? '' : host;
}
