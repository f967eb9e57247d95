import type { GuardedFetcher } from './guarded-fetch.js';

/**
 * Link previews from a destination page's Open Graph / Twitter card / plain HTML metadata. The parser is a
 * small linear scanner, not a DOM: it only needs <meta>, <title> and <base>, must stay linear on hostile
 * input (no backtracking regexes over the page), and must skip comments and script/style bodies where a
 * fake "<meta" could hide.
 */

export interface LinkPreview {
  title: string | null;
  description: string | null;
  image: string | null;
}

const MAX_TITLE = 300;
const MAX_DESCRIPTION = 1000;
const MAX_IMAGE_URL = 2048;
const SCRAPE_MAX_BYTES = 512 * 1024;
const SCRAPE_TIMEOUT_MS = 5_000;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

const TITLE_KEYS = ['og:title', 'twitter:title'];
const DESCRIPTION_KEYS = ['og:description', 'twitter:description', 'description'];
const IMAGE_KEYS = ['og:image', 'og:image:secure_url', 'og:image:url', 'twitter:image', 'twitter:image:src'];

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,6});/g, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : '\uFFFD';
  });
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f';

/** Parses attributes from `pos` up to the tag's closing `>`, quote-aware; first occurrence of a name wins. */
function parseAttributes(html: string, pos: number): { attrs: Map<string, string>; end: number } {
  const attrs = new Map<string, string>();
  let p = pos;
  while (p < html.length) {
    while (p < html.length && (isSpace(html[p]) || html[p] === '/')) p++;
    if (p >= html.length || html[p] === '>') break;
    const nameStart = p;
    // The first character always belongs to the name, so the loop advances even on stray `=` or quotes.
    p++;
    while (p < html.length && !isSpace(html[p]) && !'/>='.includes(html[p] as string)) p++;
    const name = html.slice(nameStart, p).toLowerCase();
    while (isSpace(html[p])) p++;
    let value = '';
    if (html[p] === '=') {
      p++;
      while (isSpace(html[p])) p++;
      const quote = html[p];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, p + 1);
        const end = close === -1 ? html.length : close;
        value = html.slice(p + 1, end);
        p = end + 1;
      } else {
        const start = p;
        while (p < html.length && !isSpace(html[p]) && html[p] !== '>') p++;
        value = html.slice(start, p);
      }
    }
    if (!attrs.has(name)) attrs.set(name, decodeEntities(value));
  }
  return { attrs, end: p + 1 };
}

/** Index just past the end tag `</name ...>`, case-insensitive, or the end of the input. */
function skipPast(html: string, from: number, name: string): { textEnd: number; next: number } {
  const re = new RegExp(`</${name}[\\s>/]`, 'gi');
  re.lastIndex = from;
  const hit = re.exec(html);
  if (!hit) return { textEnd: html.length, next: html.length };
  const close = html.indexOf('>', hit.index);
  return { textEnd: hit.index, next: close === -1 ? html.length : close + 1 };
}

interface RawMeta {
  meta: Map<string, string>;
  title: string | null;
  base: string | null;
}

function scan(html: string): RawMeta {
  const out: RawMeta = { meta: new Map(), title: null, base: null };
  const tagName = /[a-zA-Z][a-zA-Z0-9-]*/y;
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length) {
    if (html.startsWith('<!--', i)) {
      const close = html.indexOf('-->', i + 4);
      if (close === -1) break;
      i = html.indexOf('<', close + 3);
      continue;
    }
    tagName.lastIndex = i + 1;
    const match = tagName.exec(html);
    if (!match) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    const name = match[0].toLowerCase();
    const { attrs, end } = parseAttributes(html, tagName.lastIndex);
    let next = end;
    if (name === 'meta') {
      const key = (attrs.get('property') ?? attrs.get('name'))?.trim().toLowerCase();
      const content = attrs.get('content');
      if (key && content !== undefined && !out.meta.has(key)) out.meta.set(key, content);
    } else if (name === 'base' && out.base === null) {
      out.base = attrs.get('href') ?? null;
    } else if (name === 'title' || name === 'script' || name === 'style' || name === 'textarea') {
      // Raw-text elements: their content is not markup, so a "<meta" inside must not be read as a tag.
      const skipped = skipPast(html, end, name);
      if (name === 'title' && out.title === null)
        out.title = decodeEntities(html.slice(end, skipped.textEnd));
      next = skipped.next;
    }
    i = html.indexOf('<', next);
  }
  return out;
}

/** Collapses whitespace, trims, caps at `max` code points; empty becomes null. */
function clean(value: string | null | undefined, max: number): string | null {
  if (value == null) return null;
  const text = value.replace(/\s+/g, ' ').trim();
  if (!text) return null;
  const points = Array.from(text);
  return points.length > max ? points.slice(0, max).join('').trimEnd() : text;
}

function absoluteImage(value: string, base: string): string | null {
  const raw = value.trim();
  if (!raw) return null;
  try {
    const url = new URL(raw, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.length <= MAX_IMAGE_URL ? url.href : null;
  } catch {
    return null;
  }
}

/** Pure: extracts a preview from an HTML document fetched from `pageUrl` (the base for relative URLs). */
export function parseOpenGraph(html: string, pageUrl: string): LinkPreview {
  const { meta, title, base } = scan(html);
  const first = (keys: string[], max: number) => {
    for (const key of keys) {
      const value = clean(meta.get(key), max);
      if (value) return value;
    }
    return null;
  };
  let imageBase = pageUrl;
  if (base) imageBase = absoluteImage(base, pageUrl) ?? pageUrl;
  let image: string | null = null;
  for (const key of IMAGE_KEYS) {
    const value = meta.get(key);
    image = value === undefined ? null : absoluteImage(value, imageBase);
    if (image) break;
  }
  return {
    title: first(TITLE_KEYS, MAX_TITLE) ?? clean(title, MAX_TITLE),
    description: first(DESCRIPTION_KEYS, MAX_DESCRIPTION),
    image,
  };
}

function decodeBody(body: Buffer, contentType: string): string {
  const charset = /;\s*charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * Fetches `url` through the guarded fetcher and parses its preview. Non-2xx answers and non-HTML bodies
 * give an all-null preview; a refused or failed fetch rejects with the fetcher's GuardedFetchError.
 * Only the first 512 KB are read: the metadata lives in <head>, and big pages should still preview.
 */
export async function scrapePreview(
  fetcher: Pick<GuardedFetcher, 'request'>,
  url: string,
): Promise<LinkPreview> {
  const empty: LinkPreview = { title: null, description: null, image: null };
  const res = await fetcher.request(url, {
    method: 'GET',
    accept: 'text/html,application/xhtml+xml;q=0.9',
    maxBytes: SCRAPE_MAX_BYTES,
    timeoutMs: SCRAPE_TIMEOUT_MS,
    truncate: true,
  });
  const contentType = res.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (res.status < 200 || res.status >= 300 || !HTML_TYPES.has(mediaType)) return empty;
  return parseOpenGraph(decodeBody(res.body, contentType), res.url);
}
