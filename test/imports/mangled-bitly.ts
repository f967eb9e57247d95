import { FakeBitly } from '../fakes/bitly-server.js';
import type { FakeAnswer, FakeRequest } from '../fakes/json-api.js';

/**
 * The Bitly fake answering as a broken or hostile API might: `mangle` rewrites each page of bitlinks
 * (a `pagination.next` that is no URL, a missing `links`...), `slow` answers after a while.
 */
export class MangledBitly extends FakeBitly {
  mangle: ((body: Record<string, unknown>) => unknown) | null = null;

  protected override route(request: FakeRequest): FakeAnswer {
    const answer = super.route(request);
    if (this.mangle === null || answer.status !== 200 || !request.path.endsWith('/bitlinks')) return answer;
    return { ...answer, body: this.mangle(answer.body as Record<string, unknown>) };
  }
}

/** A page's body with its pagination's `next` replaced. */
export const withNext = (next: unknown) => (body: Record<string, unknown>) => ({
  ...body,
  pagination: { ...(body.pagination as object), next },
});
