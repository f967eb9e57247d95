import type { AppTarget } from '../platforms/index.js';
import { escapeAttr, escapeHtml, jsonForScript, safeHref } from './escape-html.js';
import type { EscapeInstructions, EscapePlan } from './escape-plan.js';
import { ESCAPE_SCRIPT } from './escape-script.js';
import { type PagePixel, PIXEL_CSP, pixelScript } from './pixels.js';

export interface EscapePageInput {
  target: AppTarget;
  plan: EscapePlan;
  /** The CSP nonce of this response: fresh per response, base64 / base64url. */
  nonce: string;
  /** Adds a small 'linkhop' mark linking to the project (no tracking). */
  branded?: boolean;
  /**
   * The outcome seam (hosted service): the page carries `<meta name="linkhop-tap">` and its script
   * reports the outcome to `reportUrl` (same origin: the CSP allows `connect-src 'self'` only). Absent
   * or null (the engine): the page reports nothing.
   */
  tap?: { token: string; reportUrl: string } | null;
  /** BCP 47 language tag of the page; 'en' when absent or malformed. */
  lang?: string;
  /** Ad pixels to load on the page (hosted, pixelInjection only); the CSP must then come from `escapePageCsp(nonce, {pixels: true})`. */
  pixels?: readonly PagePixel[];
}

/** What a page is compiled from: everything but the per-response nonce and tap token. */
export type EscapePageTemplate = Omit<EscapePageInput, 'nonce' | 'tap'> & {
  tap?: { reportUrl: string } | null;
};

const BRAND_URL = 'https://github.com/linkhop/linkhop';
const NONCE = /^[A-Za-z0-9+/_-]{1,256}={0,2}$/;
const LANG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * The Content-Security-Policy header of an escape page, as the text around its two nonces: compiled once
 * per pixel setting, so a response only joins `before + nonce + between + nonce + after`.
 */
interface EscapePageCspParts {
  before: string;
  between: string;
  after: string;
}

function cspParts(pixels: boolean): EscapePageCspParts {
  const extra = pixels ? PIXEL_CSP : { script: '', img: '', connect: '', frame: '' };
  return {
    before: "default-src 'none'; script-src 'nonce-",
    between: `'${extra.script}; style-src 'nonce-`,
    after:
      `'; img-src data:${extra.img}; connect-src 'self'${extra.connect}; ${extra.frame}` +
      "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  };
}

const CSP_PARTS = { plain: cspParts(false), pixels: cspParts(true) } as const;

/** The CSP text around the nonce, for pages with or without pixels. */
function escapePageCspParts(options: { pixels?: boolean } = {}): Readonly<EscapePageCspParts> {
  return options.pixels ? CSP_PARTS.pixels : CSP_PARTS.plain;
}

/** The Content-Security-Policy header value for an escape page rendered with `nonce`. */
export function escapePageCsp(nonce: string, options: { pixels?: boolean } = {}): string {
  checkEscapeNonce(nonce);
  const { before, between, after } = escapePageCspParts(options);
  return `${before}${nonce}${between}${nonce}${after}`;
}

/** Throws unless `nonce` is base64 / base64url: anything else could break out of the attribute and the header. */
export function checkEscapeNonce(nonce: string): void {
  // A nonce that is not base64 would break out of the attribute and the header: a programming error.
  if (!NONCE.test(nonce)) throw new TypeError('escape page nonce must be base64 or base64url');
}

// System fonts only, no images: the page must paint at once on a slow phone connection.
const CSS =
  ':root{color-scheme:light dark}*{box-sizing:border-box}' +
  'body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;' +
  'font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f5f7;color:#111}' +
  'main{width:100%;max-width:26rem;padding:1.5rem;text-align:center}' +
  'h1{margin:0 0 1.5rem;font-size:1.35rem;overflow-wrap:anywhere}' +
  '.b{display:block;width:100%;padding:1rem;border-radius:.75rem;background:#111;color:#fff;' +
  'font-size:1.1rem;font-weight:600;text-decoration:none}' +
  '.i{margin:1rem 0 0;padding:.75rem;border-radius:.5rem;background:#fff4ce;color:#4d3900}' +
  '.w{display:inline-block;margin-top:1.25rem;padding:.5rem;color:#0b57d0}' +
  'footer{position:fixed;bottom:.75rem;width:100%;text-align:center;font-size:.8rem}' +
  'footer a{color:#777;text-decoration:none}' +
  '@media(prefers-color-scheme:dark){body{background:#111;color:#eee}.b{background:#fff;color:#111}' +
  '.w{color:#8ab4f8}.i{background:#3b3000;color:#ffe9a6}}';

const SCRIPT_TAIL = `${ESCAPE_SCRIPT}</script></body></html>`;
const SCRIPT_END = `${ESCAPE_SCRIPT}</script>`;

const INSTRUCTIONS: Readonly<Record<EscapeInstructions, string>> = {
  'browser-menu': 'To open the app, tap ⋯ at the top right, then “Open in browser”.',
  'safari-menu': 'To open the app, tap ⋯ at the top right, then “Open in Safari”.',
  'browser-menu-if-stuck': 'If nothing happens, tap ⋯ at the top right, then “Open in browser”.',
};

function primaryLink(plan: EscapePlan, name: string): string {
  const primary = plan.primary;
  const href = primary === null ? '#' : safeHref(primary.href);
  if (primary === null || href === '#') return '';
  // An x-safari bounce lands in Safari, not yet in the app: say so on the button.
  const label = primary.kind === 'x-safari' ? 'Open in Safari' : `Open in ${name}`;
  return `<a id="lh-open" class="b" href="${escapeAttr(href)}">${label}</a>`;
}

// Tap tokens are base64url segments joined by dots: nothing in them needs escaping in an attribute or JSON.
const TAP_TOKEN = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
const TOKEN_SLOT = '__lh_tap_token__';

/** Every escape page stays under this many bytes, whatever its destination (issue 18). */
export const ESCAPE_PAGE_BUDGET = 10 * 1024;
/** Room kept in the budget for what each response adds: two nonces, a tap token, pixel tags' nonce. */
const PER_RESPONSE_ROOM = 768;

/** A compiled page: only the per-response parts are left, the nonce and (hosted) the visit's tap token. */
export type EscapePageRenderer = (nonce: string, tapToken?: string) => string;

/** What fills a hole of a compiled page: the response's CSP nonce, or the visit's tap token. */
export type EscapePageHole = 'nonce' | 'token';

/**
 * A page compiled for one (destination, cell, strategy, options): its text with holes for what changes
 * per response. `texts` has one more entry than `holes`: text, hole, text, ..., text. Holes are filled
 * only with values that pass `checkedPageToken` (ASCII, nothing to escape), so a
 * server may keep the texts as bytes and count the length of a response without encoding it.
 */
export interface EscapePageParts {
  texts: readonly string[];
  holes: readonly EscapePageHole[];
  /** True when the page carries a tap token (compiled with a report URL). */
  tap: boolean;
  /** True when the page loads ad pixels: its CSP is then `escapePageCspParts({pixels: true})`. */
  pixels: boolean;
}

interface PageParts {
  headStart: string;
  headEnd: string;
  body: string;
  configBefore: string;
  configAfter: string;
}

function pageParts(input: EscapePageTemplate, webHref: string): PageParts {
  const { target, plan } = input;
  const name = escapeHtml(target.platformName);
  const lang = input.lang !== undefined && LANG.test(input.lang) ? input.lang : 'en';
  const reportUrl = input.tap?.reportUrl ?? null;
  const primary = primaryLink(plan, name);
  const config = jsonForScript({
    kind: primary === '' ? null : (plan.primary?.kind ?? null),
    auto: primary !== '' && plan.autoAttempt,
    delay: plan.fallbackDelayMs,
    token: reportUrl === null ? null : TOKEN_SLOT,
    report: reportUrl,
  });
  const [configBefore = '', configAfter = ''] = config.split(TOKEN_SLOT);
  const headStart =
    `<!doctype html><html lang="${escapeAttr(lang)}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex">';
  const headEnd = `<title>Open in ${name}</title><style nonce="`;
  const body =
    `">${CSS}</style></head><body><main><h1>${name}</h1>${primary}` +
    (plan.instructions === null ? '' : `<p class="i">${escapeHtml(INSTRUCTIONS[plan.instructions])}</p>`) +
    `<a id="lh-web" class="${primary === '' ? 'b' : 'w'}" href="${escapeAttr(safeHref(webHref))}">Continue to website</a></main>` +
    (input.branded
      ? `<footer><a id="lh-brand" href="${BRAND_URL}" rel="noreferrer">linkhop</a></footer>`
      : '') +
    '<script type="application/json" id="lh-config" nonce="';
  return { headStart, headEnd, body, configBefore, configAfter };
}

const UTF8 = new TextEncoder();

function staticBytes(parts: PageParts, scripts: string): number {
  const { headStart, headEnd, body, configBefore, configAfter } = parts;
  return UTF8.encode(headStart + headEnd + body + configBefore + configAfter + scripts).length;
}

/**
 * Checks the values for a compiled page's holes and answers the token to fill in: throws unless the nonce is base64 / base64url and,
 * on a page with a tap (`tap`), the token is base64url segments joined by dots, as tap tokens are. The
 * token is '' on a page without a tap, whatever was given. Both are then ASCII with nothing to escape.
 */
export function checkedPageToken(tap: boolean, nonce: string, tapToken: string | undefined): string {
  checkEscapeNonce(nonce);
  if (!tap) return '';
  const token = tapToken ?? '';
  if (!TAP_TOKEN.test(token)) throw new TypeError('escape page tap token must be base64url segments');
  return token;
}

/**
 * Compiles a page into text and holes: the escaping, the config JSON, the markup and the pixels are all
 * done here, once. A tap token is used only when the template was compiled with a report URL (`tap`), so
 * the engine's pages never carry one. The hand-off href is always whole; when the destination is so long
 * that the page would pass its budget, the "Continue to website" link goes through the link's short `via`
 * address instead of carrying the destination a second time.
 */
export function compileEscapePageParts(input: EscapePageTemplate): EscapePageParts {
  const tap = (input.tap?.reportUrl ?? null) !== null;
  const pixels = pixelScript(input.pixels ?? []);
  const scriptsSize =
    pixels === '' ? SCRIPT_TAIL : `${SCRIPT_END}<script nonce="">${pixels}</script></body></html>`;
  let parts = pageParts(input, input.plan.web);
  const via = input.target.via;
  if (via !== undefined && staticBytes(parts, scriptsSize) > ESCAPE_PAGE_BUDGET - PER_RESPONSE_ROOM) {
    parts = pageParts(input, via);
  }
  const { headStart, headEnd, body, configBefore, configAfter } = parts;
  // Built as a list of texts and holes; neighbouring texts are merged below.
  const sequence: (string | { hole: EscapePageHole })[] = [headStart];
  const hole = (name: EscapePageHole) => sequence.push({ hole: name });
  if (tap) {
    sequence.push('<meta name="linkhop-tap" content="');
    hole('token');
    sequence.push('">');
  }
  sequence.push(headEnd);
  hole('nonce');
  sequence.push(body);
  hole('nonce');
  sequence.push(`">${configBefore}`);
  if (tap) {
    hole('token');
    sequence.push(configAfter);
  }
  sequence.push('</script><script nonce="');
  hole('nonce');
  if (pixels === '') {
    sequence.push(`">${SCRIPT_TAIL}`);
  } else {
    sequence.push(`">${SCRIPT_END}<script nonce="`);
    hole('nonce');
    sequence.push(`">${pixels}</script></body></html>`);
  }
  const texts: string[] = [''];
  const holes: EscapePageHole[] = [];
  for (const item of sequence) {
    if (typeof item === 'string') texts[texts.length - 1] += item;
    else {
      holes.push(item.hole);
      texts.push('');
    }
  }
  return { texts, holes, tap, pixels: pixels !== '' };
}

/**
 * A compiled page's texts with its holes filled by the nonce and (a page with a tap) the token, both
 * checked first. `texts` are the parts' own, or any encoding of them that keeps ASCII as it is (the
 * server's one-byte-per-byte strings, src/redirect/page-bytes.ts): the filled values are ASCII.
 */
export function fillEscapePage(
  texts: readonly string[],
  holes: readonly EscapePageHole[],
  tap: boolean,
  nonce: string,
  tapToken: string | undefined,
): string {
  const token = checkedPageToken(tap, nonce, tapToken);
  let page = texts[0] ?? '';
  for (let i = 0; i < holes.length; i++) {
    page += holes[i] === 'nonce' ? nonce : token;
    page += texts[i + 1] ?? '';
  }
  return page;
}

/**
 * The page as a function of the nonce and the tap token: checks both and splices them in. A token given
 * to a page compiled without a report URL is ignored.
 */
export function compileEscapePage(input: EscapePageTemplate): EscapePageRenderer {
  const { texts, holes, tap } = compileEscapePageParts(input);
  return (nonce: string, tapToken?: string) => fillEscapePage(texts, holes, tap, nonce, tapToken);
}

/** The interstitial that hands the visitor to the native app (reference 3.6). */
export function renderEscapePage(input: EscapePageInput): string {
  return compileEscapePage(input)(input.nonce, input.tap?.token);
}
