import { type EscapePageParts, escapePageCsp, fillEscapePage } from '../core/pages/index.js';

/**
 * An escape page kept as a byte string: the compiled texts UTF-8 encoded once and held one byte per
 * character (a "latin1" string), so a response joins them with the nonce and the tap token and Node
 * writes it with the response head in one `latin1` copy. Nothing is escaped, rendered or UTF-8 encoded
 * per request, and the Content-Length is the string's length.
 *
 * Why a string and not a Buffer: `res.end(buffer)` makes Node write the head and the body as two chunks
 * (a writev), and filling a Buffer costs a native call per text and per hole (eleven for a hosted page).
 * Joining strings is cheap in V8, and `res.end(string, 'latin1')` prepends the head and writes once: on a
 * 4,448-byte page, 18.2-18.7 µs of server CPU a request against 19.6-21.8 (docs/performance.md).
 */
export interface PageBytes {
  /**
   * The response body for this nonce and (pages with a tap) this tap token, both checked: a byte string,
   * one character per byte of the page's UTF-8, to be sent with the `latin1` encoding.
   */
  fill(nonce: string, tapToken?: string): string;
  /** The Content-Security-Policy header for this nonce. */
  csp(nonce: string): string;
  /** True when the page needs a tap token. */
  tap: boolean;
  /** Bytes of the compiled texts held for it (a response adds the nonce and the tap token). */
  size: number;
}

export function compilePageBytes(parts: EscapePageParts): PageBytes {
  const texts = parts.texts.map((text) => Buffer.from(text, 'utf8').toString('latin1'));
  const { holes, tap, pixels } = parts;

  return {
    tap,
    size: texts.reduce((total, text) => total + text.length, 0),
    fill: (nonce, tapToken) => fillEscapePage(texts, holes, tap, nonce, tapToken),
    csp: (nonce) => escapePageCsp(nonce, { pixels }),
  };
}
