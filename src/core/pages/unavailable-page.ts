// Static like the 404 page: no script, no external assets. Shown when a link may exist but the database
// that knows it cannot be asked: "try again", never "this link doesn't exist".
const UNAVAILABLE_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width,initial-scale=1">' +
  '<meta name="robots" content="noindex"><title>Try again in a moment</title>' +
  '<style>:root{color-scheme:light dark}body{margin:0;min-height:100vh;display:flex;align-items:center;' +
  'justify-content:center;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'background:#f5f5f7;color:#111;text-align:center}main{padding:1.5rem;max-width:26rem}' +
  'h1{font-size:1.35rem;margin:0 0 .5rem}p{margin:0;color:#555}' +
  '@media(prefers-color-scheme:dark){body{background:#111;color:#eee}p{color:#aaa}}</style></head>' +
  '<body><main><h1>This link is briefly unavailable</h1>' +
  '<p>We could not look it up just now. Try again in a few seconds.</p></main></body></html>';

/** The 503 page for people: a link that could not be looked up (the database is away). */
export function renderUnavailablePage(): string {
  return UNAVAILABLE_PAGE;
}
