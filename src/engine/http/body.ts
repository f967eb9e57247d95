import type { IncomingMessage } from 'node:http';
import { EngineError } from '../errors.js';

/** The largest request body the engine reads (Fastify's bodyLimit before). */
export const BODY_LIMIT = 64 * 1024;

/** A body over BODY_LIMIT: 413 `Payload too large`, not a spec error code (section 7 lists none). */
export class PayloadTooLarge extends Error {
  constructor() {
    super('Payload too large');
    this.name = 'PayloadTooLarge';
  }
}

/** The methods whose bodies Fastify read ("bodywith"); it never read a GET's, HEAD's or TRACE's, nor others'. */
const BODY_METHODS = new Set(['DELETE', 'OPTIONS', 'PATCH', 'PUT', 'POST', 'QUERY']);

/**
 * The request's JSON body, whatever its content type: undefined when it has none (no content type, no
 * length or a zero length, not chunked) or an empty one. Throws EngineError('invalid_json') when it is not
 * JSON, PayloadTooLarge beyond BODY_LIMIT (before reading, when Content-Length says so).
 */
export async function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<unknown> {
  if (!BODY_METHODS.has(req.method ?? '')) return undefined;
  const { headers } = req;
  // RFC 10008: a QUERY without a content type is refused (Fastify's 400, answered as invalid JSON).
  if (req.method === 'QUERY' && headers['content-type'] === undefined) throw new EngineError('invalid_json');
  const length = headers['content-length'];
  if (
    headers['content-type'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    (length === undefined || length === '0')
  ) {
    return undefined;
  }
  if (Number(length) > limit) throw new PayloadTooLarge();
  const text = await readText(req, limit);
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new EngineError('invalid_json');
  }
}

/** The body as UTF-8, decoded once at the end (a character split across chunks stays whole). */
function readText(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        // Left unread: the answer closes the connection, so the rest is never parsed as a request.
        stop();
        reject(new PayloadTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      );
    };
    // The client went away mid-body: nothing to answer, but the request must not hang.
    const onError = () => {
      stop();
      reject(new EngineError('invalid_json'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
