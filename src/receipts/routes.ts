import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { keysSchema, receiptSchema } from './schema.js';
import type { ReceiptService } from './service.js';

export async function receiptRoutes(app: FastifyInstance, deps: { receipts: ReceiptService }): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/links/:id/receipt',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: 'getLinkReceipt',
        summary: 'Get a signed permanence receipt',
        tags: ['links'],
        params: idParams,
        response: { 200: receiptSchema, ...errorResponses(404) },
      },
    },
    async (request) => deps.receipts.issue(orgOf(request), request.params.id),
  );
}

/** The public key document, outside /v1: no credential needed to verify a receipt. */
export async function receiptKeyRoutes(
  app: FastifyInstance,
  deps: { receipts: ReceiptService },
): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/.well-known/linkhop-receipt-keys.json',
    {
      schema: {
        operationId: 'getReceiptKeys',
        summary: 'Get the receipt signing public keys',
        tags: ['receipts'],
        security: [],
        response: { 200: keysSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return deps.receipts.publishedKeys();
    },
  );
}
