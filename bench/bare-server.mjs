// The ceiling: plain node:http answering a fixed 301 from a Map, and (once the bench sends them) fixed
// copies of the escape pages (body and headers), so each page's cost can be compared with its own bytes
// served by bare Node.
import { createServer } from 'node:http';

const links = new Map([['yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ']]);
// Path → page body and headers, e.g. '/page' (the engine's page) and '/hosted-page' (the hosted service's).
const pages = new Map();
process.on('message', (message) => {
  if (message && typeof message.path === 'string' && typeof message.page === 'string') {
    pages.set(message.path, { body: message.page, headers: message.headers ?? {} });
    process.send?.({ stored: message.path });
  }
});
const server = createServer((request, response) => {
  const page = pages.get(request.url);
  if (page !== undefined) {
    response.writeHead(200, page.headers).end(page.body);
    return;
  }
  const location = links.get(request.url.slice(1));
  if (location === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(301, { location }).end();
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
