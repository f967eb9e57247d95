import { type IncomingHttpHeaders, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastPath, FastPathOptions, FastRequest } from './fast-path.js';
import type { VisitResponse } from './respond.js';

/**
 * The redirect front: the first reader of every connection. A visit is a GET of a few hundred bytes, and
 * node:http spends more on one (an IncomingMessage and a ServerResponse with their streams, about seven
 * nextTicks, chunked framing for an empty body) than the fast path spends deciding it. So the front reads
 * the connection's bytes itself and answers the requests it can read with certainty, through the same fast
 * path, writing each answer in one piece.
 *
 * It is a recogniser of a strict subset, not an HTTP parser. It takes only complete HTTP/1.1 GET and HEAD
 * heads, every line ending in CRLF, no control characters, each header once, a Host, and nothing that
 * frames or upgrades a body (Content-Length, Transfer-Encoding, Upgrade, Expect, a Connection other than
 * keep-alive). The first request it cannot take with certainty (anything else, a head that two reads do
 * not complete, one the fast path declines) hands the connection to node:http from that request's first byte, for
 * good: node:http answers it and everything after it exactly as it would have without the front. A message
 * boundary is never decided differently from node:http, so nothing can be smuggled past either.
 */

/** node:http's default `maxHeaderSize`: a bigger head goes to node:http, which answers 431. */
const MAX_HEAD_BYTES = 16 * 1024;
const REQUEST_LINE = /^(GET|HEAD) ([\x21-\x7e]+) HTTP\/1\.1$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Bytes no head of ours holds: control characters other than tab, CR and LF (those two: `lineEnd`). */
const CONTROL = /[^\t\r\n\x20-\x7e\x80-\xff]/;
/** Header values we write: no control characters (node:http refuses them too). */
const UNSAFE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Headers that frame, upgrade or hold a message: their requests are node:http's. */
const NOT_OURS = new Set(['content-length', 'transfer-encoding', 'upgrade', 'expect', '__proto__']);

const isOws = (code: number) => code === 0x20 || code === 0x09;

/**
 * Where the line at `start` ends: its CR of a CRLF, or the head's end for the last line; -1 when a bare CR
 * or LF comes first (node:http is stricter or more lenient there than a recogniser should guess).
 */
function lineEnd(head: string, start: number): number {
  const lf = head.indexOf('\n', start);
  const end = lf === -1 ? head.length : lf - 1;
  if (lf !== -1 && head.charCodeAt(end) !== 0x0d) return -1;
  const cr = head.indexOf('\r', start);
  return cr !== -1 && cr < end ? -1 : end;
}

/** The header block of one head (`lines` after the request line) as node:http names it, or null. */
function headersOf(head: string, from: number): IncomingHttpHeaders | null {
  const headers: IncomingHttpHeaders = {};
  let start = from;
  while (start < head.length) {
    const end = lineEnd(head, start);
    if (end === -1) return null;
    const colon = head.indexOf(':', start);
    // A line without a name, or folded onto the previous one (obs-fold), is not ours.
    if (colon === -1 || colon > end || colon === start) return null;
    const rawName = head.slice(start, colon);
    if (!TOKEN.test(rawName)) return null;
    const name = rawName.toLowerCase();
    if (NOT_OURS.has(name) || name in headers) return null;
    let valueStart = colon + 1;
    let valueEnd = end;
    while (valueStart < valueEnd && isOws(head.charCodeAt(valueStart))) valueStart++;
    while (valueEnd > valueStart && isOws(head.charCodeAt(valueEnd - 1))) valueEnd--;
    const value = head.slice(valueStart, valueEnd);
    if (name === 'connection' && value.toLowerCase() !== 'keep-alive') return null;
    headers[name] = value;
    start = end + 2;
  }
  return headers.host === undefined ? null : headers;
}

/** A complete head (without its blank line) as a request the fast path can read, or null. */
export function readHead(head: string): FastRequest | null {
  if (head.length > MAX_HEAD_BYTES || CONTROL.test(head)) return null;
  const end = lineEnd(head, 0);
  const line = end === -1 ? null : REQUEST_LINE.exec(head.slice(0, end));
  if (line === null) return null;
  const headers = end === head.length ? null : headersOf(head, end + 2);
  return headers === null ? null : { method: line[1], url: line[2], headers };
}

const statusLines = new Map<number, string>();
function statusLineOf(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
    statusLines.set(status, line);
  }
  return line;
}

/** `Date`, formatted once a second as node:http does. */
let dateSecond = -1;
let dateLine = '';
function currentDateLine(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLine = `Date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateLine;
}

/**
 * A response's status line and headers, up to the Date: built once for a shared redirect (redirects to
 * one destination are one frozen object, respond.ts), per response for a page. Null when a value holds a
 * character a header cannot carry: node:http then refuses it the usual way.
 */
function headLinesOf(response: VisitResponse, extra: string): string | null {
  let head = statusLineOf(response.status);
  for (const name in response.headers) {
    const value = response.headers[name] as string;
    if (UNSAFE_VALUE.test(value)) return null;
    head += `${name}: ${value}\r\n`;
  }
  return head + extra;
}

/**
 * Puts the front before node:http's own connection listener on `server`. A connection starts with the
 * front and moves to node:http at the first request the front does not take; it never moves back.
 */
export function attachRedirectFront(server: Server, fastPath: FastPath, options: FastPathOptions = {}): void {
  const { answered } = options;
  let extra = '';
  for (const [name, value] of Object.entries(options.headers ?? {})) extra += `${name}: ${value}\r\n`;
  const sharedHeads = new WeakMap<VisitResponse, string>();
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  /** Connections the front holds: between requests every one is idle, so closing the server ends them. */
  const held = new Set<Socket>();

  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    for (const socket of held) endNow(socket);
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of held) socket.destroy();
  };

  /** The whole answer to `request`, or null when the fast path has none. `keepAlive`: the connection's line. */
  function answer(request: FastRequest, keepAlive: string): string | null {
    const started = answered ? performance.now() : 0;
    let response: VisitResponse | null;
    try {
      response = fastPath(request);
    } catch {
      return null;
    }
    if (response === null) return null;
    let head = sharedHeads.get(response);
    if (head === undefined) {
      const built = headLinesOf(response, extra);
      // node:http gets the request and meets the same value (the fast path runs again there): only a
      // destination that slipped past validation could get here, and it is refused the usual way.
      if (built === null) return null;
      head = built;
      if (Object.isFrozen(response)) sharedHeads.set(response, head);
    }
    head += currentDateLine();
    answered?.(response.status, (performance.now() - started) / 1000);
    if (response.body === undefined)
      return `${head}Connection: keep-alive\r\n${keepAlive}Content-Length: 0\r\n\r\n`;
    head += `Connection: keep-alive\r\n${keepAlive}\r\n`;
    return request.method === 'HEAD' ? head : head + response.body;
  }

  server.on('connection', (socket: Socket) => {
    held.add(socket);
    // node:http's Keep-Alive line and timeout, as the server is set when the connection opens.
    const keepAliveMs = server.keepAliveTimeout;
    const keepAlive = keepAliveMs > 0 ? `Keep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n` : '';
    // Idle past node:http's keep-alive timeout: closed, as node:http would.
    if (keepAliveMs > 0) socket.setTimeout(keepAliveMs);

    // The start of a head the read ended in: the next read must bring its end, or node:http takes it.
    let carried: Buffer | null = null;
    const onData = (chunk: Buffer) => {
      const bytes = carried === null ? chunk : Buffer.concat([carried, chunk]);
      const continued = carried !== null;
      carried = null;
      const text = bytes.toString('latin1');
      let out = '';
      let start = 0;
      let split = false;
      while (start < text.length) {
        const end = text.indexOf('\r\n\r\n', start);
        if (end === -1) {
          split = true;
          break;
        }
        const request = readHead(text.slice(start, end));
        const response = request === null ? null : answer(request, keepAlive);
        if (response === null) break;
        out += response;
        start = end + 4;
      }
      // One write for every answer in the read, in request order, before node:http writes anything.
      if (out !== '' && !socket.write(out, 'latin1')) {
        socket.pause();
        socket.once('drain', onDrain);
      }
      if (start === text.length) return;
      const rest = start === 0 ? bytes : bytes.subarray(start);
      // A pipelining client's reads end mid-request: carry the start once. A head still incomplete after
      // a second read (a trickle) or past the size limit is node:http's, with its headers timeout.
      if (split && !(continued && start === 0) && rest.length <= MAX_HEAD_BYTES) carried = rest;
      else handOver(rest);
    };
    const onDrain = () => socket.resume();
    const onTimeout = () => socket.destroy();
    const onEnd = () => socket.end();
    const onError = () => socket.destroy();
    const onClose = () => held.delete(socket);

    /** node:http takes the connection from `rest` on, as if it had read every byte itself. */
    function handOver(rest: Buffer): void {
      socket.pause();
      socket.off('data', onData);
      socket.off('drain', onDrain);
      socket.off('timeout', onTimeout);
      socket.off('end', onEnd);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.setTimeout(0);
      held.delete(socket);
      socket.unshift(rest);
      for (const listener of nodeListeners) listener.call(server, socket);
      if (socket.writableNeedDrain) socket.once('drain', () => socket.resume());
      else socket.resume();
    }

    socket.on('data', onData);
    socket.on('timeout', onTimeout);
    socket.on('end', onEnd);
    socket.on('error', onError);
    socket.on('close', onClose);
  });
}

/** Ends an idle connection the front holds: at once, or after what is still being written. */
function endNow(socket: Socket): void {
  if (socket.writableLength === 0) socket.destroy();
  else socket.end(() => socket.destroy());
}
