import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { qrCodeUrl } from '../core/visit-source.js';
import { featureError } from '../errors.js';
import { contentResponse, errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { LinkService } from './service.js';

const hexColour = z
  .string()
  .regex(/^#?[0-9a-fA-F]{6}$/, 'Colours are hex, e.g. #112233')
  .transform((value) => `#${value.replace('#', '').toLowerCase()}`);

export const qrQuery = z
  .object({
    format: z.enum(['svg', 'png']).default('svg'),
    size: z.coerce.number().int().min(128).max(2048).optional(),
    margin: z.coerce.number().int().min(0).max(16).optional(),
    fg: hexColour.optional(),
    bg: hexColour.optional(),
    ecl: z.enum(['L', 'M', 'Q', 'H']).optional(),
  })
  .strict();

/** GET /v1/links/{id}/qr: the short URL with its QR marker as SVG or PNG; anything beyond the format needs qrCustomization. */
export async function qrRoutes(
  app: FastifyInstance,
  deps: { links: LinkService; operationId?: string },
): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/links/:id/qr',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: deps.operationId ?? 'getLinkQr',
        summary: "Get a link's QR code",
        tags: ['links'],
        params: idParams,
        querystring: qrQuery,
        produces: ['image/svg+xml', 'image/png'],
        response: {
          200: contentResponse('The QR code', 'image/svg+xml', 'image/png'),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const ctx = orgOf(request);
      const { format, size, margin, fg, bg, ecl } = request.query;
      if (!ctx.features.qrCodes) throw featureError('qrCodes');
      const customised = [size, margin, fg, bg, ecl].some((value) => value !== undefined);
      if (customised && !ctx.features.qrCustomization) throw featureError('qrCustomization');
      const link = await deps.links.get(ctx, request.params.id);
      const options = {
        margin: margin ?? 4,
        width: size ?? 512,
        errorCorrectionLevel: ecl ?? 'M',
        color: { dark: fg ?? '#000000', light: bg ?? '#ffffff' },
      };
      reply.header('cache-control', 'private, max-age=300');
      // Loaded with the first QR code asked for (with pngjs, about 1 MB a server need not hold before).
      const { default: QRCode } = await import('qrcode');
      // The marker tells a scan from a click (source `qr`); the redirect never forwards it.
      const target = qrCodeUrl(link.shortUrl);
      if (format === 'png') {
        const png = await QRCode.toBuffer(target, { ...options, type: 'png' });
        // An image, not JSON: the typed reply only knows the error schemas.
        return reply.type('image/png').send(png as never);
      }
      const svg = await QRCode.toString(target, { ...options, type: 'svg' });
      return reply.type('image/svg+xml').send(svg as never);
    },
  );
}
