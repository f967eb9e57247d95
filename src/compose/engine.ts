import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type CompiledDestination, compileDestination } from '../core/destination.js';
import { createEscapeMatrix } from '../core/escape/matrix.js';
import type { EscapeMatrix } from '../core/escape/types.js';
import { LruCache } from '../core/lru-cache.js';
import { createPlatformTable } from '../core/platforms/match.js';
import type { PlatformTable } from '../core/platforms/types.js';
import { createVisitorClassifier } from '../core/visitor.js';
import { buildEngineApp, type EngineApp } from '../engine/app.js';
import type { EngineConfig } from '../engine/config.js';
import { WEB_MARKER } from '../engine/fast-path.js';
import { createEngineLinkRepo } from '../engine/repo.js';
import { createEngineLinkService } from '../engine/service.js';
import { type EngineStore, pingEngineStore } from '../engine/store.js';
import { createBearerCheck } from '../http/bearer.js';
import { createNonceSource } from '../redirect/nonce.js';
import { createVisitResponder } from '../redirect/respond.js';

/**
 * The self-hosted engine's composition root, apart from the hosted service's (src/app.ts) so that the
 * engine never loads the hosted modules, nor Fastify and Zod (test/engine/engine-module-graph.test.ts).
 */

const LINK_CACHE_SIZE = 50_000;

/** What the engine's app reads of its configuration (engine/config.ts gives it). */
export type EngineAppConfig = Pick<
  EngineConfig,
  'baseUrl' | 'apiToken' | 'platformsFile' | 'escapeMatrixFile'
>;

/** Builds the engine on an open store; the caller listens. */
export async function composeEngine(
  config: EngineAppConfig,
  store: EngineStore,
  logger: Logger,
): Promise<EngineApp> {
  const table = await loadPlatformTable(config.platformsFile);
  const matrix = await loadEscapeMatrix(config.escapeMatrixFile);
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
    ping: () => pingEngineStore(store),
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

// PLATFORMS_FILE and ESCAPE_MATRIX_FILE are validated with Zod schemas shared with the hosted service:
// loaded only when a file is set, so an engine without one never loads Zod.

async function loadPlatformTable(file: string | undefined): Promise<PlatformTable> {
  if (!file) return createPlatformTable();
  return (await import('../platform-table.js')).loadPlatformTable(file);
}

async function loadEscapeMatrix(file: string | undefined): Promise<EscapeMatrix> {
  if (!file) return createEscapeMatrix();
  return (await import('../escape-matrix.js')).loadEscapeMatrix(file);
}
