// Static: nothing in it depends on the request, so it is built once. No script, no external assets.
const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width,initial-scale=1">' +
  '<meta name="robots" content="noindex"><title>Link not found</title>' +
  '<style>:root{color-scheme:light dark}body{margin:0;min-height:100vh;display:flex;align-items:center;' +
  'justify-content:center;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'background:#f5f5f7;color:#111;text-align:center}main{padding:1.5rem;max-width:26rem}' +
  'h1{font-size:1.35rem;margin:0 0 .5rem}p{margin:0;color:#555}' +
  '@media(prefers-color-scheme:dark){body{background:#111;color:#eee}p{color:#aaa}}</style></head>' +
  "<body><main><h1>This link doesn't exist</h1>" +
  '<p>Check the address, or ask whoever shared it for a new link.</p></main></body></html>';

/** The 404 page for people: an unknown slug or path. */
export function renderNotFoundPage(): string {
  return NOT_FOUND_PAGE;
}
