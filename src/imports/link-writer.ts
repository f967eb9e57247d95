import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { hasForbiddenControl } from '../http/edge-text.js';
import { createLinkBody } from '../links/schema.js';
import type { LinkService } from '../links/service.js';
import { isUniqueViolation } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import type { ImportRepo } from './repo.js';
import type { ImportError, ImportSourceName, SourceItem } from './schema.js';

/**
 * Turns a source's items into links through the links service, so every rule of a create applies (slug
 * rules, plan gates, the link cap, URL validation, cache invalidation, the link.created event). Each item
 * ends imported, skipped (valid, but not now: already imported, slug taken, cap, plan) or failed (cannot
 * be a link here), with its reason; notes (a hostname not verified) ride along with imported items.
 */

/** An item's name as an error row can store it: control characters shown as U+FFFD. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const printable = (label: string) => label.replace(/[\u0000-\u001f\u007f]/g, '\uFFFD');

export interface LinkWriterDeps {
  repo: Pick<ImportRepo, 'importedKeys' | 'recordItem'>;
  links: Pick<LinkService, 'create'>;
  /** Keeps the source's title as the link's preview title. */
  setTitle: (ctx: OrgContext, linkId: string, title: string) => Promise<void>;
  /** The organization's verified domains. */
  verifiedHosts: (ctx: OrgContext) => Promise<ReadonlySet<string>>;
  baseUrl: string;
  now: () => Date;
  onUnexpected: (error: unknown, item: SourceItem) => void;
}

export interface PageOutcome {
  imported: number;
  skipped: number;
  failed: number;
  errors: ImportError[];
}

export interface ImportJob {
  id: string;
  orgId: string;
  source: ImportSourceName;
}

const MAX_TAGS = 20;
const MAX_TAG_LENGTH = 64;
const MAX_TITLE = 300;
const MAX_KEY = 200;

type Verdict = 'imported' | 'skipped' | 'failed';

/** Keys fit the column; a long one (a CSV row known by its URL) is kept as its hash. */
function storedKey(key: string): string {
  if (key.length <= MAX_KEY) return key;
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** A refused create, sorted: the plan or the state of the organization skips it, bad data fails it. */
function verdictOf(error: AppError): Verdict {
  if (error.code === 'slug_taken' || error.code === 'link_cap_reached' || error.status === 403)
    return 'skipped';
  return 'failed';
}

/** Tags as links take them (trimmed, 1 to 64 characters, at most 20), and what had to be left out. */
function tagsOf(item: SourceItem): { tags: string[]; dropped: string[] } {
  const unique = [...new Set(item.tags.map((tag) => tag.trim()).filter(Boolean))];
  const fitting = unique.filter((tag) => tag.length <= MAX_TAG_LENGTH);
  const tags = fitting.slice(0, MAX_TAGS);
  return { tags, dropped: unique.filter((tag) => !tags.includes(tag)) };
}

export function createLinkWriter(deps: LinkWriterDeps) {
  const defaultHost = new URL(deps.baseUrl).hostname;

  /** Where the link goes: the source's own hostname when it is this organization's verified domain. */
  function hostnameFor(ctx: OrgContext, item: SourceItem, verified: ReadonlySet<string>) {
    if (item.host === null || item.host === defaultHost) return { hostname: undefined, note: null };
    if (verified.has(item.host) && ctx.features.customDomains) return { hostname: item.host, note: null };
    const why = verified.has(item.host)
      ? 'the plan does not include custom domains'
      : `${item.host} is not a verified domain of this organization`;
    return { hostname: undefined, note: `${why}: imported on the default host (${deps.baseUrl})` };
  }

  async function writeItem(
    ctx: OrgContext,
    job: ImportJob,
    item: SourceItem,
    verified: ReadonlySet<string>,
    errors: ImportError[],
  ): Promise<Verdict> {
    const note = (reason: string) => errors.push({ item: printable(item.label), reason });
    // A source's text never passed the API's edge rule: NUL would fail PostgreSQL's insert (issue #30).
    if (
      [item.url, item.slug, item.title, ...item.tags].some((value) => value && hasForbiddenControl(value))
    ) {
      note('its URL, slug, title or tags hold control characters');
      return 'failed';
    }
    const { hostname, note: hostNote } = hostnameFor(ctx, item, verified);
    const { tags, dropped } = tagsOf(item);
    const parsed = createLinkBody.safeParse({
      url: item.url,
      ...(item.slug === null ? {} : { slug: item.slug }),
      ...(hostname ? { hostname } : {}),
      ...(tags.length > 0 ? { tags } : {}),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      note(`${issue?.path.join('.') || 'link'}: ${issue?.message ?? 'invalid'}`);
      return 'failed';
    }
    let linkId: string;
    try {
      linkId = (
        await deps.links.create(ctx, parsed.data, item.createdAt ? { createdAt: item.createdAt } : {})
      ).id;
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const where = hostname ? ` on ${hostname}` : '';
      note(error.code === 'slug_taken' ? `slug "${item.slug}" is already taken${where}` : error.message);
      return verdictOf(error);
    }
    if (hostNote) note(hostNote);
    if (dropped.length > 0)
      note(`tags left out (at most 20, each 1 to 64 characters): ${dropped.join(', ')}`);
    if (item.title) await deps.setTitle(ctx, linkId, item.title.trim().slice(0, MAX_TITLE));
    try {
      await deps.repo.recordItem({
        orgId: ctx.orgId,
        source: job.source,
        sourceKey: storedKey(item.key),
        importId: job.id,
        linkId,
        visits: item.visits,
        createdAt: deps.now().toISOString(),
      });
    } catch (error) {
      // Another import of the same source recorded it a moment earlier; the link stands.
      if (!isUniqueViolation(error)) throw error;
    }
    return 'imported';
  }

  return {
    async writePage(ctx: OrgContext, job: ImportJob, items: SourceItem[]): Promise<PageOutcome> {
      const outcome: PageOutcome = { imported: 0, skipped: 0, failed: 0, errors: [] };
      const keys = items.map((item) => storedKey(item.key));
      const done = await deps.repo.importedKeys(ctx.orgId, job.source, keys);
      const verified = await deps.verifiedHosts(ctx);
      for (const [index, item] of items.entries()) {
        // Imported by this very import before a restart: counted again, since that page's counts were lost.
        const by = done.get(keys[index] as string);
        let verdict: Verdict;
        if (by === job.id) verdict = 'imported';
        else if (by !== undefined) {
          outcome.errors.push({ item: item.label, reason: `already imported (import ${by})` });
          verdict = 'skipped';
        } else {
          try {
            verdict = await writeItem(ctx, job, item, verified, outcome.errors);
          } catch (error) {
            deps.onUnexpected(error, item);
            outcome.errors.push({ item: item.label, reason: 'could not be saved (internal error)' });
            verdict = 'failed';
          }
        }
        outcome[verdict] += 1;
        // SQLite answers synchronously: without this a page would hold the event loop, and redirects wait.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return outcome;
    },
  };
}

export type LinkWriter = ReturnType<typeof createLinkWriter>;
