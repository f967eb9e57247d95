import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { appError } from '../errors.js';
import { contentResponse, errorBodies } from '../http/schemas.js';
import { MAX_DELIVERY_BYTES, type SocialIntake, signatureValid } from './intake.js';
import type { SweepCounts } from './refresh.js';

/**
 * The two routes outside the dashboard: the provider's webhook (`socialPublicRoutes`, registered at the
 * root: no session, no CSRF guard, its own raw-body parser) and the cron sweep (`socialInternalRoutes`).
 */

const tags = ['social'];

/** Constant-time equality of two secrets of any length (hashing first equalises the lengths). */
function sameSecret(given: string | undefined, expected: string | undefined): boolean {
  if (!given || !expected) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export async function socialPublicRoutes(
  app: FastifyInstance,
  deps: { intake: SocialIntake; appSecret: string | undefined; verifyToken: string | undefined },
): Promise<void> {
  // Encapsulated: in this plugin every body stays raw bytes, so the signature is checked over exactly
  // what was sent, before any parsing. bodyLimit counts bytes while reading (chunked bodies included).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_DELIVERY_BYTES },
    (_request, body, done) => done(null, body),
  );
  const path = '/api/public/social/webhook';
  app.get(
    path,
    {
      schema: {
        operationId: 'socialWebhookHandshake',
        summary: 'Answer the provider webhook handshake',
        tags,
        security: [],
        response: { 200: contentResponse('hub.challenge, echoed', 'text/plain'), ...errorBodies(403) },
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      if (query['hub.mode'] !== 'subscribe' || !sameSecret(query['hub.verify_token'], deps.verifyToken)) {
        throw appError('forbidden', 'The verify token does not match');
      }
      return reply
        .code(200)
        .type('text/plain; charset=utf-8')
        .send(String(query['hub.challenge'] ?? ''));
    },
  );
  app.post(
    path,
    {
      bodyLimit: MAX_DELIVERY_BYTES,
      schema: {
        operationId: 'socialWebhookDelivery',
        summary: 'Receive provider webhook events',
        tags,
        security: [],
        response: { 200: z.object({ received: z.literal(true) }), ...errorBodies(403, 413) },
      },
      // A declared length over the limit is refused before a byte is read.
      onRequest: async (request: FastifyRequest) => {
        if (Number(request.headers['content-length'] ?? 0) > MAX_DELIVERY_BYTES)
          throw appError('payload_too_large');
      },
    },
    async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-hub-signature-256'];
      if (!signatureValid(deps.appSecret, raw, typeof header === 'string' ? header : undefined)) {
        throw appError('forbidden', 'The signature is absent or invalid');
      }
      deps.intake.accept(raw);
      return reply.code(200).send({ received: true });
    },
  );
}

export async function socialInternalRoutes(
  app: FastifyInstance,
  deps: { cronSecret: string | undefined; sweep: () => Promise<SweepCounts> },
): Promise<void> {
  app.post(
    '/internal/social-refresh',
    {
      schema: {
        operationId: 'socialRefreshSweep',
        summary: 'Refresh expiring social tokens (cron)',
        tags,
        hide: true,
      },
    },
    async (request) => {
      if (!deps.cronSecret) throw appError('not_provisioned', 'CRON_SECRET is not configured');
      const given = request.headers['x-cron-secret'];
      if (!sameSecret(typeof given === 'string' ? given : undefined, deps.cronSecret)) {
        throw appError('unauthorized', 'A valid x-cron-secret header is required');
      }
      return deps.sweep();
    },
  );
}
