import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The web dashboard (web/, built by Vite into dist/web) served by the hosted service itself: index.html
 * at `/` (and at the social provider's OAuth return address), the hashed bundles under `/assets/`.
 * Everything is read and gzipped once at start; a request is a map lookup.
 */

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

export interface DashboardAssets {
  index: Asset | null;
  files: Map<string, Asset>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

// The dashboard's own policy: its scripts and styles only, images from us or the web (bio avatars).
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** dist/web next to the compiled server (dist/http -> dist/web), or from the sources (src/http). */
export function defaultDashboardDir(): string {
  const candidates = ['../web', '../../dist/web'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? (candidates[0] as string);
}

function assetOf(path: string): Asset {
  const body = readFileSync(path);
  return {
    type: TYPES[extname(path)] ?? 'application/octet-stream',
    body,
    gzip: gzipSync(body, { level: 9 }),
  };
}

export function loadDashboardAssets(dir: string): DashboardAssets {
  const indexPath = join(dir, 'index.html');
  const files = new Map<string, Asset>();
  const assetsDir = join(dir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) files.set(name, assetOf(join(assetsDir, name)));
  }
  return { index: existsSync(indexPath) ? assetOf(indexPath) : null, files };
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string): FastifyReply {
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  reply
    .header('content-type', asset.type)
    .header('cache-control', cache)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (gzip) reply.header('content-encoding', 'gzip');
  return reply.send(gzip ? asset.gzip : asset.body);
}

const NOT_BUILT =
  '<!doctype html><meta charset="utf-8"><title>linkhop</title><p>The dashboard is not built. Run <code>npm install</code> (or <code>npm run build</code>) and restart.</p>';

export async function dashboardRoutes(
  app: FastifyInstance,
  deps: { assets: DashboardAssets },
): Promise<void> {
  const { assets } = deps;
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('content-security-policy', CSP).header('referrer-policy', 'same-origin');
    if (!assets.index)
      return reply.code(503).header('content-type', 'text/html; charset=utf-8').send(NOT_BUILT);
    return send(request, reply, assets.index, 'no-cache');
  };
  app.get('/', { schema: { hide: true } }, page);
  // The social provider sends the creator back here with ?code&state; the dashboard finishes the connect.
  app.get('/social/callback', { schema: { hide: true } }, page);
  app.get<{ Params: { file: string } }>(
    '/assets/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = assets.files.get(request.params.file);
      if (!asset) return reply.code(404).header('content-type', 'text/plain').send('Not found');
      // File names carry a content hash: a new build is a new name, so the old one may be kept forever.
      return send(request, reply, asset, 'public, max-age=31536000, immutable');
    },
  );
}
