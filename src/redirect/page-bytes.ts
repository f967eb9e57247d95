import {
  checkedPageToken,
  type EscapePageHole,
  type EscapePageParts,
  escapePageCsp,
} from '../core/pages/index.js';

/**
 * An escape page kept as bytes: the compiled texts encoded once, so a response copies them and writes
 * the nonce and the tap token between them. Nothing is escaped, rendered or UTF-8 encoded per request,
 * and the Content-Length is known without scanning the page.
 */
export interface PageBytes {
  /** The response body for this nonce and (pages with a tap) this tap token; both are checked. */
  fill(nonce: string, tapToken?: string): Buffer;
  /** The Content-Security-Policy header for this nonce. */
  csp(nonce: string): string;
  /** True when the page needs a tap token. */
  tap: boolean;
}

/**
 * Responses are cut from shared slabs, as Buffer.allocUnsafe does for small buffers (which an escape page,
 * over 4 KB, is not): one allocation per slab instead of one per page. A slice is never written again
 * once handed out, so a socket still sending it is safe; the slab goes when its last slice does.
 */
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let slabOffset = 0;

function take(size: number): Buffer {
  if (size > SLAB_BYTES / 4) return Buffer.allocUnsafe(size);
  if (slabOffset + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafe(SLAB_BYTES);
    slabOffset = 0;
  }
  const bytes = slab.subarray(slabOffset, slabOffset + size);
  // Kept 8-byte aligned, as Node's own pool does.
  slabOffset = (slabOffset + size + 7) & ~7;
  return bytes;
}

export function compilePageBytes(parts: EscapePageParts): PageBytes {
  const texts = parts.texts.map((text) => Buffer.from(text, 'utf8'));
  const holes: readonly EscapePageHole[] = parts.holes;
  const nonces = holes.filter((hole) => hole === 'nonce').length;
  const tokens = holes.length - nonces;
  const fixed = texts.reduce((sum, text) => sum + text.length, 0);
  const { tap, pixels } = parts;

  return {
    tap,
    fill(nonce, tapToken) {
      const token = checkedPageToken(tap, nonce, tapToken);
      // Both values are ASCII once checked: one byte per character.
      const body = take(fixed + nonces * nonce.length + tokens * token.length);
      let at = 0;
      for (let i = 0; i < holes.length; i++) {
        at += (texts[i] as Buffer).copy(body, at);
        at += body.write(holes[i] === 'nonce' ? nonce : token, at, 'latin1');
      }
      (texts[holes.length] as Buffer).copy(body, at);
      return body;
    },
    csp: (nonce) => escapePageCsp(nonce, { pixels }),
  };
}
