import { csvCell } from '../core/csv.js';
import { AppError } from '../errors.js';
import type { OrgContext } from '../tenancy/context.js';
import type { BulkActionRepo } from './bulk-repo.js';
import { EXPORT_COLUMNS, type ExportQuery } from './bulk-schema.js';
import type { Link } from './schema.js';
import type { LinkService } from './service.js';

/**
 * GET /v1/links/export.csv: the selected links as the CSV importer reads them (src/imports/sources/csv.ts),
 * so an export imports back, here or in another organization, as the same links: destination, slug, tags,
 * preview title and creation date. Streamed page by page, newest first (an `ids` selection in its order).
 *
 * Cells that a spreadsheet would run as a formula are neutralized (core/csv.ts), except the slug, whose
 * alphabet (letters, digits, `-`, `_`) holds no formula: a slug like `-promo` must come back as itself.
 */

const PAGE = 500;

export interface LinkExportDeps {
  links: Pick<LinkService, 'get' | 'list'>;
  repo: Pick<BulkActionRepo, 'titles'>;
}

function slugCell(slug: string): string {
  return /^[A-Za-z0-9_-]*$/.test(slug) ? slug : csvCell(slug);
}

export function createLinkExport(deps: LinkExportDeps) {
  async function lines(links: Link[]): Promise<string> {
    const titles = await deps.repo.titles(links.map((link) => link.id));
    return links
      .map((link) => {
        const cells = [
          csvCell(link.destination),
          slugCell(link.slug),
          csvCell(link.tags.join('|')),
          csvCell(titles.get(link.id) ?? null),
          csvCell(link.createdAt),
        ];
        return `${cells.join(',')}\r\n`;
      })
      .join('');
  }

  /** The links an `ids` selection names, in its order; ids of no link of this organization are left out. */
  async function named(ctx: OrgContext, ids: readonly string[]): Promise<Link[]> {
    const found: Link[] = [];
    for (const id of new Set(ids)) {
      try {
        found.push(await deps.links.get(ctx, id));
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      }
    }
    return found;
  }

  return {
    async *csv(ctx: OrgContext, query: ExportQuery): AsyncGenerator<string> {
      yield `${EXPORT_COLUMNS.join(',')}\r\n`;
      const { ids, ...filter } = query;
      if (ids) {
        const links = await named(ctx, ids);
        for (let i = 0; i < links.length; i += PAGE) yield await lines(links.slice(i, i + PAGE));
        return;
      }
      for (let offset = 0; ; offset += PAGE) {
        const page = await deps.links.list(ctx, { ...filter, limit: PAGE, offset });
        if (page.length > 0) yield await lines(page);
        if (page.length < PAGE) return;
      }
    },
  };
}

export type LinkExport = ReturnType<typeof createLinkExport>;
