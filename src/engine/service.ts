import type { PlatformTable } from '../core/platforms/index.js';
import type { RandomBytes } from '../core/slugs.js';
import { generateSlug } from '../core/slugs.js';
import { EngineError } from './errors.js';
import type { EngineLinkRepo, EngineLinkRow } from './repo.js';
import type { CreateEngineLinkInput, EngineLink } from './schema.js';

const GENERATED_SLUG_LENGTH = 6;
// 62^6 is 56.8 billion slugs: eight straight collisions mean the store is nearly full or broken.
const GENERATION_ATTEMPTS = 8;

export interface EngineLinkService {
  create(input: CreateEngineLinkInput): Promise<EngineLink>;
  get(slug: string): Promise<EngineLink>;
}

export interface EngineLinkServiceDeps {
  repo: EngineLinkRepo;
  table: PlatformTable;
  baseUrl: string;
  randomBytes: RandomBytes;
  now: () => Date;
}

export function createEngineLinkService(deps: EngineLinkServiceDeps): EngineLinkService {
  const { repo, table, baseUrl } = deps;
  const present = (row: EngineLinkRow): EngineLink => ({
    slug: row.slug,
    url: row.url,
    shortUrl: `${baseUrl}/${row.slug}`,
    deeplink: row.platformKey,
  });

  return {
    async create(input) {
      const base = {
        url: input.url,
        platformKey: table.match(input.url)?.key ?? null,
        createdAt: deps.now().toISOString(),
      };
      if (input.slug) {
        const row = { ...base, slug: input.slug };
        if (!(await repo.insert(row))) throw new EngineError('slug_taken');
        return present(row);
      }
      for (let attempt = 0; attempt < GENERATION_ATTEMPTS; attempt++) {
        const row = { ...base, slug: generateSlug(GENERATED_SLUG_LENGTH, deps.randomBytes) };
        if (await repo.insert(row)) return present(row);
      }
      throw new Error('Could not generate a free slug');
    },

    async get(slug) {
      const row = await repo.findBySlug(slug);
      if (!row) throw new EngineError('not_found');
      return present(row);
    },
  };
}
