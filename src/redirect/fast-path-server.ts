import { createServer, type RequestListener, type Server } from 'node:http';
import type { FastPath, FastPathOptions } from './fast-path.js';
import { attachRedirectFront } from './redirect-front.js';
import { writeVisitResponse } from './respond.js';

/**
 * A Fastify `serverFactory` that tries the fast path first. Well-formed visits on a connection are read
 * and answered by the redirect front (redirect-front.ts) before node:http sees them; a connection the
 * front hands over, and any request it does not take, meets the fast path again here.
 */
export function serverWithFastPath(fastPath: FastPath, options: FastPathOptions = {}) {
  const { answered, headers = {} } = options;
  return (handler: RequestListener): Server => {
    const server = createServer((req, res) => {
      const started = answered ? performance.now() : 0;
      let status = 0;
      try {
        const response = fastPath(req);
        if (response !== null) {
          for (const name in headers) res.setHeader(name, headers[name] as string);
          writeVisitResponse(req.method, res, response);
          status = response.status;
        }
      } catch {
        // Never fail a visit on the fast path: Fastify answers it the slow way, with its error handling.
        status = res.headersSent ? res.statusCode : 0;
      }
      if (status === 0) handler(req, res);
      else answered?.(status, (performance.now() - started) / 1000);
    });
    attachRedirectFront(server, fastPath, { answered, headers });
    return server;
  };
}
