import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy on loopback in front of a real linkhop, as a load balancer stands in front of one:
 * it answers the first requests itself with the scripted statuses (a 503 while an upstream restarts, a
 * 429 from an edge limit) and forwards the rest. It records what each request carried, so a test can see
 * that a retried POST was sent again whole.
 */
export interface Refusal {
  status: 429 | 503;
  retryAfter?: string;
}

export interface FaultProxy {
  url: string;
  seen: { method: string; path: string; body: string }[];
  close(): Promise<void>;
}

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startFaultProxy(upstream: string, refusals: Refusal[]): Promise<FaultProxy> {
  const script = [...refusals];
  const seen: FaultProxy['seen'] = [];
  const server: Server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    seen.push({ method: request.method ?? '', path: request.url ?? '', body });
    const refusal = script.shift();
    if (refusal) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (refusal.retryAfter !== undefined) headers['retry-after'] = refusal.retryAfter;
      const error = refusal.status === 429 ? 'rate_limited' : 'unavailable';
      response.writeHead(refusal.status, headers).end(JSON.stringify({ error, message: 'try again' }));
      return;
    }
    const forwarded = await fetch(`${upstream}${request.url}`, {
      method: request.method ?? 'GET',
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
        ),
      ),
      ...(body ? { body } : {}),
    });
    response.writeHead(forwarded.status, Object.fromEntries(forwarded.headers));
    response.end(Buffer.from(await forwarded.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
