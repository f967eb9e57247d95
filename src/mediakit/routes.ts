import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFoundOr, sendCreatorPage } from '../bio/routes.js';
import { sendNotFoundPage } from '../http/html.js';
import { contentResponse, errorResponses } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { hasFeature } from '../tenancy/plans.js';
import { renderCardSvg } from './card-svg.js';
import { renderMediaKitPage } from './page-html.js';
import { dashboardKitSchema, mediaKitBody, publicKitSchema } from './schema.js';
import type { MediaKitService } from './service.js';

const handleParams = z.object({ handle: z.string() });
const deletedSchema = z.object({ deleted: z.literal(true) });

/** /media-kit under /api, behind the session hook. */
export async function mediaKitRoutes(
  app: FastifyInstance,
  deps: { mediaKit: MediaKitService },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { mediaKit } = deps;
  const tags = ['media-kit'];
  r.get(
    '/media-kit',
    {
      config: { permission: 'bio:read' },
      schema: {
        operationId: 'getMediaKit',
        summary: 'Get the media kit settings',
        tags,
        response: { 200: dashboardKitSchema, ...errorResponses(403) },
      },
    },
    async (request) => mediaKit.get(orgOf(request)),
  );
  r.put(
    '/media-kit',
    {
      config: { permission: 'bio:write' },
      schema: {
        operationId: 'saveMediaKit',
        summary: 'Save the media kit settings',
        tags,
        description: 'Default-deny: only a literal `true` publishes or switches a section on.',
        body: mediaKitBody,
        response: { 200: dashboardKitSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => mediaKit.save(orgOf(request), request.body),
  );
  r.delete(
    '/media-kit',
    {
      config: { permission: 'bio:write' },
      schema: {
        operationId: 'deleteMediaKit',
        summary: 'Delete the media kit',
        tags,
        response: { 200: deletedSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => mediaKit.remove(orgOf(request)),
  );
}

/** The public payload and the card, under /api, with no credential. */
export async function publicMediaKitRoutes(
  app: FastifyInstance,
  deps: { mediaKit: MediaKitService },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/public/media-kit/:handle',
    {
      config: { permission: 'public' },
      schema: {
        operationId: 'getPublicMediaKit',
        summary: 'Get a published media kit',
        tags: ['media-kit'],
        security: [],
        params: handleParams,
        response: { 200: publicKitSchema, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const kit = await deps.mediaKit.publicKit(request.params.handle);
      reply.header('cache-control', 'public, max-age=60');
      return kit;
    },
  );
  r.get(
    '/public/media-kit/:handle/card.svg',
    {
      config: { permission: 'public' },
      schema: {
        operationId: 'getMediaKitCard',
        summary: "Get a media kit's SVG card",
        tags: ['media-kit'],
        security: [],
        params: handleParams,
        description: '1200x630 image/svg+xml app-open-rate card.',
        response: { 200: contentResponse('The card', 'image/svg+xml'), ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { kit, appOpen } = await deps.mediaKit.card(request.params.handle);
      const svg = renderCardSvg({
        handle: kit.handle,
        title: kit.title,
        theme: kit.theme,
        window: kit.window,
        appOpen,
      });
      return (
        reply
          .header('content-type', 'image/svg+xml; charset=utf-8')
          .header('cache-control', 'public, max-age=60')
          .header('x-content-type-options', 'nosniff')
          // An SVG opened directly is a document: no script, no outside fetch.
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .send(svg as never)
      );
    },
  );
}

/** GET /@{handle}/media-kit: the published kit as HTML, at the root of the default host. */
export async function mediaKitPageRoutes(
  app: FastifyInstance,
  deps: { mediaKit: MediaKitService; nonce: () => string; baseUrl: string },
): Promise<void> {
  app.get<{ Params: { handle: string } }>(
    '/@:handle/media-kit',
    { schema: { hide: true } },
    async (request, reply) => {
      try {
        if (deps.mediaKit.flagOff()) return sendNotFoundPage(reply);
        const { kit, settings, tier } = await deps.mediaKit.publishedKit(request.params.handle);
        const nonce = deps.nonce();
        const base = `${deps.baseUrl}/@${kit.handle}/media-kit`;
        const html = renderMediaKitPage({
          kit,
          nonce,
          url: base,
          cardUrl:
            settings.show.appOpenRate && kit.appOpen
              ? `${deps.baseUrl}/api/public/media-kit/${encodeURIComponent(kit.handle)}/card.svg`
              : null,
          branded: !hasFeature(tier, 'removeBranding'),
        });
        return sendCreatorPage(reply, nonce, html);
      } catch (error) {
        return notFoundOr(reply, error);
      }
    },
  );
}
