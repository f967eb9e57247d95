/**
 * The pages of a list the service pages with `limit` and `offset`: `for await (const page of pages)`
 * fetches one page per step and stops after a short page. Offsets shift when items are created or
 * archived meanwhile, so an item may show twice or be missed across pages: the list is live, not a snapshot.
 */
export class Pages<T> implements AsyncIterable<T[]> {
  constructor(
    private readonly fetchPage: (page: { limit: number; offset: number }) => Promise<T[]>,
    private readonly limit: number,
    private readonly offset = 0,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T[]> {
    for (let offset = this.offset; ; ) {
      const page = await this.fetchPage({ limit: this.limit, offset });
      if (page.length > 0) yield page;
      if (page.length < this.limit) return;
      offset += page.length;
    }
  }

  /** One item at a time, across pages. */
  async *items(): AsyncGenerator<T> {
    for await (const page of this) yield* page;
  }

  /** Every item of every page, in one array. */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const page of this) items.push(...page);
    return items;
  }
}
