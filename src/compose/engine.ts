import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { type CompiledDestination, compileDestination } from '../core/destination.js';
import { LruCache } from '../core/lru-cache.js';
import { createVisitorClassifier } from '../core/visitor.js';
import { buildEngineApp } from '../engine/app.js';
import { WEB_MARKER } from '../engine/fast-path.js';
import { createEngineLinkRepo } from '../engine/repo.js';
import { createEngineLinkService } from '../engine/service.js';
import { loadEscapeMatrix } from '../escape-matrix.js';
import { createBearerCheck } from '../http/bearer.js';
import { loadPlatformTable } from '../platform-table.js';
import { createNonceSource } from '../redirect/nonce.js';
import { createVisitResponder } from '../redirect/respond.js';
import type { Store } from '../store/database.js';
import { pingStore } from '../store/health.js';

/**
 * The self-hosted engine's composition root, apart from the hosted service's (src/app.ts) so that the
 * engine never loads the hosted modules: server.ts imports app.ts only for `linkhop serve`.
 */

const LINK_CACHE_SIZE = 50_000;

/** Builds the engine on an open store; the caller listens (tests use app.inject). */
export function composeEngine(config: Config, store: Store, logger: Logger): FastifyInstance {
  const table = loadPlatformTable(config.platformsFile);
  const matrix = loadEscapeMatrix(config.escapeMatrixFile);
  const repo = createEngineLinkRepo(store);
  const links = createEngineLinkService({
    repo,
    table,
    baseUrl: config.baseUrl,
    randomBytes: (size) => randomBytes(size),
    now: () => new Date(),
  });
  const loadCompiled = async (slug: string): Promise<CompiledDestination | undefined> => {
    const row = await repo.findBySlug(slug);
    const self = `${config.baseUrl}/${slug}`;
    // The iOS bounce to Safari comes back to the link; `?web=1` is the short way to the website.
    return row && compileDestination(table, row.url, { selfUrl: self, via: `${self}?${WEB_MARKER}`, matrix });
  };
  return buildEngineApp({
    logger,
    ping: () => pingStore(store),
    links,
    authorize: createBearerCheck(config.apiToken),
    respondToVisit: createVisitResponder({
      classify: createVisitorClassifier(),
      nonce: createNonceSource(),
      redirectStatus: 301,
      redirectHeaders: { vary: 'User-Agent' },
    }),
    cache: new LruCache(LINK_CACHE_SIZE),
    loadCompiled,
  });
}
