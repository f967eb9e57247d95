import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import { urlField } from '../core/urls.js';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { Executor, Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { createPreviewRepo, type PreviewRow } from './preview-repo.js';
import type { LinkService } from './service.js';

/** A link's preview: scraped from the destination through the guarded fetcher, or overridden by hand. */

const fields = z.object({
  title: z.string().nullable(),
  description: z.string().nullable(),
  image: z.string().nullable(),
});
type Fields = z.infer<typeof fields>;

const previewSchema = fields.extend({
  source: z.enum(['scraped', 'custom']),
  scraped: fields.nullable(),
  updatedAt: z.string().nullable(),
});
export type Preview = z.infer<typeof previewSchema>;

const customBody = z
  .object({
    title: z.string().trim().max(300).nullable().optional(),
    description: z.string().trim().max(1000).nullable().optional(),
    image: urlField({ message: '`image` must be a valid http(s) URL', max: 2048 }).nullable().optional(),
  })
  .strict();

const EMPTY: Fields = { title: null, description: null, image: null };

export interface PreviewDeps {
  store: Store;
  links: LinkService;
  /** Fetches and parses the destination's Open Graph tags; throws when it cannot. */
  scrape: (url: string) => Promise<Fields>;
  now: () => Date;
  /** Called after a preview changes, so the redirect's cached fallback page shows the new one. */
  onChange: (link: { hostname: string | null; slug: string }) => void;
  /** The audit log: a custom card set or cleared by hand is a link edit, logged in its transaction. */
  audit?: AuditLog;
}

export function createPreviewService(deps: PreviewDeps) {
  const repo = createPreviewRepo(deps.store);
  const parse = (text: string | null): Fields | null => (text === null ? null : (JSON.parse(text) as Fields));

  const present = (row: PreviewRow | undefined): Preview => {
    if (!row) return { ...EMPTY, source: 'scraped', scraped: null, updatedAt: null };
    const scraped = parse(row.scraped);
    const source = row.source === 'custom' ? 'custom' : 'scraped';
    const shown = source === 'custom' ? (parse(row.custom) ?? EMPTY) : (scraped ?? EMPTY);
    return { ...shown, source, scraped, updatedAt: row.updated_at };
  };

  async function save(
    linkId: string,
    change: { source?: string; scraped?: Fields | null; custom?: Fields | null },
    ex?: Executor,
  ) {
    // Read through `ex` too: on SQLite's one connection, a read outside the transaction would wait for it.
    const current = await repo.find(linkId, ex);
    const row = {
      link_id: linkId,
      source: change.source ?? current?.source ?? 'scraped',
      scraped:
        change.scraped === undefined
          ? (current?.scraped ?? null)
          : change.scraped && JSON.stringify(change.scraped),
      custom:
        change.custom === undefined
          ? (current?.custom ?? null)
          : change.custom && JSON.stringify(change.custom),
      updated_at: deps.now().toISOString(),
    };
    await repo.upsert(row, ex);
    return present(row);
  }

  /** A card set or cleared by a person or a key: the write and its audit row commit together. */
  async function editByHand(
    ctx: OrgContext,
    linkId: string,
    action: 'link.preview_set' | 'link.preview_cleared',
    change: { source: string; custom: Fields | null },
  ): Promise<Preview> {
    const before = present(await repo.find(linkId));
    return repo.transaction(async (trx) => {
      const after = await save(linkId, change, trx);
      const changes = changesBetween(before, after, { only: ['source', 'title', 'description', 'image'] });
      await deps.audit?.record(trx, ctx, { action, target: { type: 'link', id: linkId }, changes });
      return after;
    });
  }

  async function scrape(ctx: OrgContext, linkId: string): Promise<Preview> {
    const link = await deps.links.get(ctx, linkId);
    let scraped: Fields | null = null;
    try {
      scraped = await deps.scrape(link.destination);
    } catch {
      // An unreachable or refused destination keeps the last good scrape, if any.
      const current = await repo.find(link.id);
      return current ? present(current) : save(link.id, { scraped: null });
    }
    const preview = await save(link.id, { scraped });
    deps.onChange(link);
    return preview;
  }

  return {
    /** The preview; the first read scrapes. */
    async get(ctx: OrgContext, linkId: string): Promise<Preview> {
      const link = await deps.links.get(ctx, linkId);
      const row = await repo.find(link.id);
      return row ? present(row) : scrape(ctx, link.id);
    },
    async setCustom(ctx: OrgContext, linkId: string, body: z.infer<typeof customBody>): Promise<Preview> {
      const link = await deps.links.get(ctx, linkId);
      const custom = {
        title: body.title ?? null,
        description: body.description ?? null,
        image: body.image ?? null,
      };
      const preview = await editByHand(ctx, link.id, 'link.preview_set', { source: 'custom', custom });
      deps.onChange(link);
      return preview;
    },
    async clearCustom(ctx: OrgContext, linkId: string): Promise<Preview> {
      const link = await deps.links.get(ctx, linkId);
      const preview = await editByHand(ctx, link.id, 'link.preview_cleared', {
        source: 'scraped',
        custom: null,
      });
      deps.onChange(link);
      return preview;
    },
    rescrape: scrape,
  };
}

export type PreviewService = ReturnType<typeof createPreviewService>;

export async function previewRoutes(
  app: FastifyInstance,
  deps: { previews: PreviewService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { previews } = deps;
  const op = operationIds(deps.operationPrefix);
  const schema = (operationId: string, summary: string) => ({
    operationId,
    summary,
    tags: ['links'],
    params: idParams,
    response: { 200: previewSchema, ...errorResponses(400, 404) },
  });
  const read = { permission: 'links:read' } as const;
  const write = { permission: 'links:write' } as const;
  r.get(
    '/links/:id/og',
    { config: read, schema: schema(op('getLinkPreview'), "Get a link's preview card") },
    async (request) => previews.get(orgOf(request), request.params.id),
  );
  r.put(
    '/links/:id/og',
    {
      config: write,
      schema: { ...schema(op('setLinkPreview'), 'Set a custom preview card'), body: customBody },
    },
    async (request) => previews.setCustom(orgOf(request), request.params.id, request.body),
  );
  r.delete(
    '/links/:id/og',
    { config: write, schema: schema(op('clearLinkPreview'), 'Clear the custom preview card') },
    async (request) => previews.clearCustom(orgOf(request), request.params.id),
  );
  r.post(
    '/links/:id/og/scrape',
    { config: write, schema: schema(op('scrapeLinkPreview'), "Re-scrape the destination's preview") },
    async (request) => previews.rescrape(orgOf(request), request.params.id),
  );
}
