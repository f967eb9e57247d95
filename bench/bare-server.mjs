// The ceiling: plain node:http answering a fixed 301 from a Map, and (once the bench sends it) a fixed
// copy of an escape page, so a page's cost can be compared with the same bytes served by bare Node.
import { createServer } from 'node:http';

const links = new Map([['yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ']]);
let page = '';
process.on('message', (message) => {
  if (message && typeof message.page === 'string') page = message.page;
});
const server = createServer((request, response) => {
  if (request.url === '/page') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
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
