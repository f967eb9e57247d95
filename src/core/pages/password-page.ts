import { escapeAttr, escapeHtml } from './escape-html.js';
import { type PagePixel, PIXEL_CSP, pixelScript } from './pixels.js';

export interface PasswordPageInput {
  /** Where the form posts: the link's own path. */
  action: string;
  nonce: string;
  error?: 'wrong' | 'too_many' | null;
  branded?: boolean;
  pixels?: readonly PagePixel[];
}

const MESSAGES = {
  wrong: 'That password is not right. Try again.',
  too_many: 'Too many attempts. Wait a minute and try again.',
} as const;

/** The CSP of the password form: no script at all, styles by nonce, the form posts to us only. */
export function passwordPageCsp(nonce: string, options: { pixels?: boolean } = {}): string {
  const pixels = options.pixels
    ? `script-src 'nonce-${nonce}'${PIXEL_CSP.script}; img-src${PIXEL_CSP.img}; connect-src${PIXEL_CSP.connect}; ${PIXEL_CSP.frame}`
    : '';
  return `default-src 'none'; ${pixels}style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

const CSS =
  'body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;' +
  'font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f5f7;color:#111}' +
  'form{width:100%;max-width:22rem;padding:1.5rem}h1{font-size:1.25rem;margin:0 0 1rem}' +
  'label{display:block;margin-bottom:.4rem}input{width:100%;box-sizing:border-box;padding:.8rem;font-size:1rem;' +
  'border:1px solid #999;border-radius:.5rem}button{margin-top:1rem;width:100%;padding:.9rem;font-size:1rem;' +
  'font-weight:600;border:0;border-radius:.5rem;background:#111;color:#fff}.e{color:#b3261e}' +
  'footer{margin-top:2rem;text-align:center;font-size:.8rem}footer a{color:#777}';

function pixelTag(input: PasswordPageInput): string {
  const script = pixelScript(input.pixels ?? []);
  return script === '' ? '' : `<script nonce="${escapeAttr(input.nonce)}">${script}</script>`;
}

/** A small form that asks for a protected link's password; works without JavaScript. */
export function renderPasswordPage(input: PasswordPageInput): string {
  const error = input.error ? `<p class="e" role="alert">${escapeHtml(MESSAGES[input.error])}</p>` : '';
  const brand = input.branded
    ? '<footer><a href="https://github.com/linkhop/linkhop">linkhop</a></footer>'
    : '';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>Password required</title><style nonce="${escapeAttr(input.nonce)}">${CSS}</style></head><body>` +
    `<form method="post" action="${escapeAttr(input.action)}"><h1>This link is protected</h1>${error}` +
    '<label for="pw">Password</label>' +
    '<input id="pw" name="password" type="password" autocomplete="current-password" required autofocus>' +
    `<button type="submit">Continue</button>${brand}</form>${pixelTag(input)}</body></html>`
  );
}
