// The ceiling: plain node:http answering a fixed 301 from a Map. No framework, no work.
import { createServer } from 'node:http';

const links = new Map([['yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ']]);
const server = createServer((request, response) => {
  const location = links.get(request.url.slice(1));
  if (location === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(301, { location }).end();
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
