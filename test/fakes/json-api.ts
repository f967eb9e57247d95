import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The common part of the shortener fakes (test/fakes/*-server.ts): a loopback HTTP server that records
 * every request, answers with the real API's status, headers and error bodies, and has knobs a test
 * turns: rate-limit the next requests (429 with Retry-After) or fail them with any status. Each fake
 * supplies its routes, its credential check and its error shape.
 */

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export abstract class FakeJsonApi {
  origin = '';
  readonly requests: FakeRequest[] = [];
  private server: Server | undefined;
  private throttles: (string | null)[] = [];
  private failures: FakeAnswer[] = [];

  /** The service's own error body for `status` (Bitly `{message}`, Shlink problem details...). */
  protected abstract errorBody(status: number, message: string): unknown;
  /** null when the request carries the right credential, else the real API's refusal. */
  protected abstract refuse(request: FakeRequest): FakeAnswer | null;
  protected abstract route(request: FakeRequest): FakeAnswer;
  protected contentType(_status: number): string {
    return 'application/json';
  }

  /** The next `count` requests answer 429; `retryAfter` is sent as the Retry-After header (null: none). */
  throttleNext(count: number, retryAfter: string | null): this {
    for (let i = 0; i < count; i++) this.throttles.push(retryAfter);
    return this;
  }

  /** The next request answers `status` with the service's error body. */
  failNext(status: number, message = 'Something went wrong'): this {
    this.failures.push({ status, body: this.errorBody(status, message) });
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const request = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
      };
      this.requests.push(request);
      req.resume();
      req.on('end', () => this.send(res, this.answer(request)));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  protected notFound(message = 'Not found'): FakeAnswer {
    return { status: 404, body: this.errorBody(404, message) };
  }

  private answer(request: FakeRequest): FakeAnswer {
    if (this.throttles.length > 0) {
      const retryAfter = this.throttles.shift() ?? null;
      return {
        status: 429,
        body: this.errorBody(429, 'Too many requests'),
        headers: retryAfter === null ? {} : { 'retry-after': retryAfter },
      };
    }
    const failure = this.failures.shift();
    if (failure) return failure;
    return this.refuse(request) ?? this.route(request);
  }

  private send(res: ServerResponse, answer: FakeAnswer): void {
    res.writeHead(answer.status, { 'content-type': this.contentType(answer.status), ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }
}

/** `count` items made by `make(i)`, i from 1. */
export function many<T>(count: number, make: (i: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index + 1));
}

/** An ISO timestamp `days` after 2021-03-01, so seeded links have distinct, ordered creation dates. */
export function dayAfterStart(days: number): Date {
  return new Date(Date.UTC(2021, 2, 1) + days * 86_400_000);
}
