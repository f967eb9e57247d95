import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findControlCharacter } from '../http/edge-text.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { contentResponse, errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { CAPTURE_PATH } from './capture-form.js';
import { type AudienceService, DASHBOARD_LIST_LIMIT, MAX_EMAIL_LENGTH } from './service.js';

/** decisions.md "Public rate limits": at least 20 capture submissions per address per minute. */
export const CAPTURE_RATE_LIMIT = { limit: 20, windowSeconds: 60 } as const;
const CAPTURE_BODY_LIMIT = 8 * 1024;

export const contactSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    sourceSlug: z.string().nullable(),
    country: z.string().nullable().describe('best effort, from the edge geo header'),
    createdAt: z.string(),
  })
  .meta({ id: 'Contact' });
export const audienceListSchema = z
  .object({
    count: z.number().int().describe("the organization's total contacts, not the page size"),
    contacts: z.array(contactSchema),
  })
  .meta({ id: 'AudienceList' });
export const contactDetailSchema = contactSchema
  .extend({
    consentText: z.string().describe('the exact wording agreed to; blank means a permanent send refusal'),
    unsubscribedAt: z.string().nullable(),
    sourceLinkId: z.uuid().nullable(),
    broadcasts: z.array(
      z.object({
        id: z.uuid(),
        subject: z.string(),
        status: z.enum(['queued', 'sending', 'sent', 'failed', 'skipped']),
        reason: z.string().nullable(),
        sentAt: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'ContactDetail' });
const pageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200, '`limit` is at most 200').optional(),
    offset: z.coerce.number().int().min(0).optional(),
  })
  .strict();

/**
 * The audience list, detail, delete and export, on /v1 (paged with limit/offset) and on the dashboard
 * (the newest 500, no paging). Register inside the /v1 scope and inside the authenticated /api scope.
 */
export async function audienceRoutes(
  app: FastifyInstance,
  deps: { audience: AudienceService; dashboard?: boolean },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { audience } = deps;
  const tags = ['audience'];
  const op = (id: string) => (deps.dashboard ? `dashboard${id[0]?.toUpperCase()}${id.slice(1)}` : id);
  r.get(
    '/audience',
    {
      config: { permission: 'audience:read' },
      schema: {
        operationId: op('listAudience'),
        summary: 'List contacts',
        tags,
        description: deps.dashboard
          ? 'The newest 500 contacts, newest first, with the total count.'
          : 'Contacts, newest first; `limit` (max 200) and `offset`; both omitted returns every contact.',
        ...(deps.dashboard ? {} : { querystring: pageQuery }),
        response: { 200: audienceListSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) =>
      audience.list(
        orgOf(request),
        deps.dashboard ? { limit: DASHBOARD_LIST_LIMIT } : (request.query as z.infer<typeof pageQuery>),
      ),
  );
  r.get(
    '/audience/export.csv',
    {
      config: { permission: 'audience:read' },
      schema: {
        operationId: op('exportAudience'),
        summary: 'Export contacts as CSV',
        tags,
        description:
          'The whole list, oldest first, as CSV: `email,source_slug,country,consent_text,captured_at`. Cells ' +
          'beginning with =, +, -, @, tab or carriage return are prefixed with an apostrophe.',
        produces: ['text/csv'],
        response: { 200: contentResponse('The contacts', 'text/csv'), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const csv = await audience.exportCsv(orgOf(request));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="linkhop-audience.csv"')
        .header('cache-control', 'no-store')
        .send(csv as never);
    },
  );
  r.get(
    '/audience/:id',
    {
      config: { permission: 'audience:read' },
      schema: {
        operationId: op('getContact'),
        summary: 'Get a contact',
        tags,
        params: idParams,
        response: { 200: contactDetailSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => audience.detail(orgOf(request), request.params.id),
  );
  r.delete(
    '/audience/:id',
    {
      config: { permission: 'audience:write' },
      schema: {
        operationId: op('deleteContact'),
        summary: 'Delete a contact',
        tags,
        description: 'Removes the contact row entirely. No tier or flag gate.',
        params: idParams,
        response: { 200: z.object({ deleted: z.literal(true) }), ...errorResponses(404) },
      },
    },
    async (request) => audience.remove(orgOf(request), request.params.id),
  );
}

const captureBody = z
  .looseObject({
    slug: z.string(),
    email: z.string().max(MAX_EMAIL_LENGTH),
    consent: z.boolean().describe('must be exactly true'),
    website: z.string().describe('honeypot: leave empty'),
  })
  .meta({ id: 'CaptureSubmission' });

/** JSON, text/plain holding JSON, or a plain form post (the fallback page without JavaScript). */
function parseSubmission(contentType: string | undefined, raw: string): Record<string, unknown> | null {
  try {
    if (/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) {
      const fields = Object.fromEntries(new URLSearchParams(raw));
      // A checkbox can only say "true" as text; JSON bodies must still send the boolean itself.
      return { ...fields, consent: fields.consent === 'true' };
    }
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * `POST /api/public/capture`: no auth, always 204 with no body, whatever happened. Register it at the
 * root, outside the dashboard's CSRF guard: a plain form post is not JSON and must still get its 204.
 */
export async function captureRoutes(
  app: FastifyInstance,
  deps: { audience: AudienceService; limiter: RateLimiter; geoHeader: string },
): Promise<void> {
  // Every body type is read as text here and judged by the handler, so no parser error can answer 4xx.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: CAPTURE_BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );
  const noContent = (reply: FastifyReply) => reply.code(204).send();
  app.setErrorHandler((_error, _request, reply) => noContent(reply));

  app.post(
    CAPTURE_PATH,
    {
      schema: {
        operationId: 'captureEmail',
        summary: 'Capture an email from a fallback page',
        tags: ['audience'],
        security: [],
        description:
          'Public email capture from the rich fallback page. Always 204 with no body, for every outcome ' +
          '(malformed body, honeypot filled, consent missing, unknown slug, capture off, plan without the ' +
          'feature, duplicate email, rate limited). Also accepts a form post and text/plain holding JSON.',
        body: captureBody,
        response: { 204: z.undefined().describe('No Content') },
      },
      // The documented schema is for readers; the handler validates itself so refusals stay silent.
      validatorCompiler: () => (value) => ({ value }),
    },
    async (request: FastifyRequest, reply) => {
      try {
        const decision = await deps.limiter.hit(`capture:${request.ip}`);
        if (!decision.allowed) return noContent(reply);
        const body =
          typeof request.body === 'string'
            ? parseSubmission(request.headers['content-type'], request.body)
            : null;
        const parsed = body && captureBody.safeParse({ website: '', ...body });
        // Control characters are refused as everywhere at the edge, but silently, as every refusal here.
        if (!parsed?.success || findControlCharacter(parsed.data)) return noContent(reply);
        await deps.audience.capture({ ...parsed.data, country: countryOf(request.headers[deps.geoHeader]) });
      } catch (error) {
        request.log.error({ err: error }, 'capture failed');
      }
      return noContent(reply);
    },
  );
}

function countryOf(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  const upper = text?.trim().toUpperCase() ?? '';
  return /^[A-Z]{2}$/.test(upper) ? upper : null;
}
