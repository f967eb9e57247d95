import { lookup as dnsLookup } from 'node:dns/promises';
import type { Socket } from 'node:net';
import { isIP, isIPv4 } from 'node:net';
import type { Agent, buildConnector, request as undiciRequestType } from 'undici';
import { isPublicAddress } from './addresses.js';

/**
 * SSRF-guarded outbound HTTP for user-given URLs (webhook deliveries, Open Graph scraping).
 *
 * The address rule is enforced twice: `checkUrl` when a URL is saved, and inside the undici connector at
 * every new connection. The connector resolves the host once, verifies every address, and connects to a
 * verified IP while TLS SNI, certificate checks and the Host header keep the hostname, so a DNS answer that
 * changes between check and connect (rebinding) can never steer the socket to an internal address.
 *
 * Redirects: GET and HEAD follow up to `maxRedirects` (default 3) hops, each hop re-validated like a fresh URL
 * (scheme, credentials, address at connect time) and with cookie/authorization dropped across origins;
 * POST never follows (a signed webhook body must not be replayed elsewhere) and returns the 3xx as is.
 * The time cap covers the whole exchange: DNS, connect, every hop and reading the body.
 */

/** Refusals are decided before any connection; failures happen while fetching. */
export type GuardedFetchRefusal = 'invalid_url' | 'scheme_not_allowed' | 'address_not_allowed';
export type GuardedFetchFailure = 'dns_failed' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network';
export type GuardedFetchErrorCode = GuardedFetchRefusal | GuardedFetchFailure;

/** A refused or failed fetch: a machine `code` and a message safe to show a user (no stack, no internal IP). */
export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError';
  constructor(
    readonly code: GuardedFetchErrorCode,
    message: string,
  ) {
    super(message);
  }

  toJSON(): { code: GuardedFetchErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export interface GuardedFetcherOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=1: allow http: and non-public addresses (development and tests only). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** DNS seam for tests; defaults to the system resolver (getaddrinfo, all addresses). */
  lookup?: (host: string) => Promise<string[]>;
  /** Trust roots replacing the system ones (tests with a self-signed certificate, private CAs). */
  ca?: string | string[];
  /**
   * False closes each connection after its response (the destination checker: one request to a host,
   * then none for minutes, and a socket held for the keep-alive would outlive a young-generation GC).
   */
  keepAlive?: boolean;
}

export interface GuardedRequestInit {
  method: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  maxBytes?: number;
  timeoutMs?: number;
  /** Sent as the Accept header; checking the response content-type is the caller's business. */
  accept?: string;
  maxRedirects?: number;
  /** Past maxBytes, return the first maxBytes instead of failing with too_large (page heads for scraping). */
  truncate?: boolean;
}

export interface GuardedResponse {
  /** The URL that answered, after any redirects: the base for relative links in the body. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface GuardedFetcher {
  checkUrl(url: string): Promise<void>;
  request(url: string, init: GuardedRequestInit): Promise<GuardedResponse>;
  /** Tears down pooled connections (tests, shutdown). */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
// More addresses than this are not worth waiting for: each failed attempt can take a connect timeout.
const MAX_CONNECT_ATTEMPTS = 3;

function fail(code: GuardedFetchErrorCode, message: string): never {
  throw new GuardedFetchError(code, message);
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `localhost` and `*.localhost` (RFC 6761) resolve to loopback by convention, whatever DNS says. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

async function systemLookup(host: string): Promise<string[]> {
  const records = await dnsLookup(host, { all: true, verbatim: true });
  return records.map((r) => r.address);
}

/** Maps anything thrown by undici or the stream into a GuardedFetchError without its stack or internals. */
function toGuardedError(err: unknown, timedOut: boolean): GuardedFetchError {
  if (err instanceof GuardedFetchError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const slow = timedOut || TIMEOUT_CODES.has(code as string);
  if (slow) return new GuardedFetchError('timeout', 'The request took too long');
  const detail = typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
  return new GuardedFetchError('network', `The request failed${detail}`);
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number, truncate: boolean): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    // Leaving a for-await early destroys the stream, which drops the connection mid-body.
    if (total + chunk.length > maxBytes) {
      if (!truncate) fail('too_large', `The response is larger than ${maxBytes} bytes`);
      chunks.push(chunk.subarray(0, maxBytes - total));
      total = maxBytes;
      break;
    }
    total += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

export function createGuardedFetcher(options: GuardedFetcherOptions): GuardedFetcher {
  const { allowPrivate } = options;
  const resolveHost = options.lookup ?? systemLookup;
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const defaultMaxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const defaultMaxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;

  /** Every rule decidable without DNS; runs on the given URL and again on each redirect target. */
  function parseTarget(raw: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      fail('invalid_url', base ? 'The redirect location is not a valid URL' : 'The URL is not valid');
    }
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      fail(
        'scheme_not_allowed',
        allowPrivate ? 'Only http and https URLs are allowed' : 'Only https URLs are allowed',
      );
    }
    if (url.username || url.password) fail('invalid_url', 'URLs with credentials are not allowed');
    const host = stripBrackets(url.hostname);
    if (!host) fail('invalid_url', 'The URL has no host');
    if (!allowPrivate && (isIP(host) ? !isPublicAddress(host) : isLocalName(host))) {
      fail('address_not_allowed', 'The URL points to an address that is not allowed');
    }
    return url;
  }

  /** One resolution, every address verified; the connector connects only to what this returns. */
  async function resolveVerified(host: string): Promise<string[]> {
    if (!allowPrivate && isLocalName(host)) fail('address_not_allowed', 'The host is not allowed');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = await resolveHost(host);
      } catch {
        fail('dns_failed', 'The host name could not be resolved');
      }
    }
    if (addresses.length === 0) fail('dns_failed', 'The host name could not be resolved');
    if (!allowPrivate && !addresses.every((a) => isPublicAddress(a))) {
      fail('address_not_allowed', 'The host resolves to an address that is not allowed');
    }
    // IPv4 first: many hosts here have no IPv6 route, and a dead v6 attempt costs a connect timeout.
    return [...addresses].sort((a, b) => Number(isIPv4(b)) - Number(isIPv4(a)));
  }

  /**
   * undici, loaded and its pool made on the first outbound request: about 8 MB of RSS (its sources, the
   * llhttp WebAssembly) that a server which never sends a webhook or reads a page need not hold.
   */
  let client: Promise<{ agent: Agent; send: typeof undiciRequestType }> | undefined;
  const undiciClient = () => {
    client ??= import('undici').then((undici) => {
      const baseConnect = undici.buildConnector({
        timeout: defaultTimeout,
        ...(options.ca ? { ca: options.ca } : {}),
      });
      const agent = new undici.Agent({
        connect: pinnedConnector(baseConnect),
        headersTimeout: defaultTimeout,
        bodyTimeout: defaultTimeout,
      });
      return { agent, send: undici.request };
    });
    return client;
  };

  const pinnedConnector = (baseConnect: buildConnector.connector): buildConnector.connector => {
    const connectTo = (opts: buildConnector.Options) =>
      new Promise<Socket>((resolve, reject) =>
        baseConnect(opts, (err, socket) => (err ? reject(err) : resolve(socket as Socket))),
      );
    return (opts, callback) => {
      // SNI must carry the name the certificate is checked against, never the pinned IP.
      const servername = opts.protocol === 'https:' && !isIP(opts.hostname) ? opts.hostname : undefined;
      void (async () => {
        // Bounded here too: undici cannot abort a request whose connection is still being set up.
        const addresses = await withTimeout(resolveVerified(opts.hostname), defaultTimeout);
        let lastError: unknown;
        for (const address of addresses.slice(0, MAX_CONNECT_ATTEMPTS)) {
          try {
            return await connectTo({ ...opts, hostname: address, ...(servername ? { servername } : {}) });
          } catch (err) {
            lastError = err;
          }
        }
        throw lastError;
      })().then(
        (socket) => callback(null, socket),
        (err: Error) => callback(err, null),
      );
    };
  };

  async function request(rawUrl: string, init: GuardedRequestInit): Promise<GuardedResponse> {
    const timeoutMs = init.timeoutMs ?? defaultTimeout;
    const maxBytes = init.maxBytes ?? defaultMaxBytes;
    const maxRedirects = init.method === 'POST' ? 0 : (init.maxRedirects ?? defaultMaxRedirects);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let headers: Record<string, string> = { 'user-agent': 'linkhop', ...lowerKeys(init.headers ?? {}) };
    if (init.accept) headers.accept = init.accept;
    try {
      let url = parseTarget(rawUrl);
      const { agent, send } = await undiciClient();
      for (let hop = 0; ; hop++) {
        const pending = send(url, {
          dispatcher: agent,
          method: init.method,
          headers,
          body: init.method === 'POST' ? (init.body ?? '') : null,
          signal: controller.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          ...(options.keepAlive === false ? { reset: true } : {}),
        });
        const res = await abortable(pending, controller.signal);
        const location = res.headers.location;
        if (maxRedirects > 0 && REDIRECT_STATUSES.has(res.statusCode) && typeof location === 'string') {
          await res.body.dump();
          if (hop >= maxRedirects) fail('too_many_redirects', `More than ${maxRedirects} redirects`);
          const next = parseTarget(location, url);
          if (next.origin !== url.origin) {
            const { authorization: _a, cookie: _c, ...rest } = headers;
            headers = rest;
          }
          url = next;
          continue;
        }
        const declared = Number(res.headers['content-length']);
        if (!init.truncate && Number.isFinite(declared) && declared > maxBytes) {
          res.body.destroy();
          fail('too_large', `The response is larger than ${maxBytes} bytes`);
        }
        const body = await readCapped(res.body, maxBytes, init.truncate === true);
        return { url: url.href, status: res.statusCode, headers: flattenHeaders(res.headers), body };
      }
    } catch (err) {
      throw toGuardedError(err, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }

  async function checkUrl(rawUrl: string): Promise<void> {
    const url = parseTarget(rawUrl);
    // With allowPrivate there is no address rule left for DNS to enforce; unresolvable dev hosts stay usable.
    if (allowPrivate) return;
    await withTimeout(resolveVerified(stripBrackets(url.hostname)), defaultTimeout);
  }

  return {
    checkUrl,
    request,
    close: async () => {
      const loaded = client;
      client = undefined;
      if (loaded) await (await loaded).agent.destroy();
    },
  };
}

/** A slow resolver must not hold a check or a connection attempt open indefinitely. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new GuardedFetchError('timeout', 'DNS resolution took too long');
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(reject, ms, slow)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * undici only honours an abort once the request reaches a socket; while the connector is still resolving
 * or dialling, the caller would wait. This settles on abort at once; undici drops the request when it connects.
 */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
