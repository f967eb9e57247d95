import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';
import { hasFeature, type Tier } from '../tenancy/plans.js';
import { consentText } from './service.js';

/**
 * The email capture form of the rich fallback page (hosted-service.md 4.4 rule 5). Pure: the lead's
 * fallback page inserts the HTML. Without JavaScript it is a plain same-origin form post, which the capture
 * route accepts and answers 204, so the browser stays on the page. With the nonce'd script it posts JSON
 * and says thanks; that needs `script-src 'nonce-…'` and `connect-src 'self'` in the page's CSP.
 */

export const CAPTURE_PATH = '/api/public/capture';

/** Rule 5: the plan includes capture, the flag is on, the link asks for it, and it is a default-host link. */
export function captureFormAllowed(input: {
  tier: Tier;
  flagsOff: ReadonlySet<string>;
  captureEmails: boolean;
  /** The link's host: '' (or null) is the default host. */
  host: string | null;
}): boolean {
  return (
    hasFeature(input.tier, 'audienceCapture') &&
    !input.flagsOff.has('audienceCapture') &&
    input.captureEmails &&
    (input.host === '' || input.host === null)
  );
}

/** The CSP sources the form's script needs, for the page to merge into its policy. */
export function captureFormCsp(nonce: string): { scriptSrc: string; connectSrc: string } {
  return { scriptSrc: `'nonce-${nonce}'`, connectSrc: "'self'" };
}

const CSS =
  '.lh-c{margin-top:1.25rem;padding:1rem;border-radius:.75rem;background:rgba(127,127,127,.08)}' +
  '.lh-c h2{font-size:1rem;margin:0 0 .6rem}.lh-c input[type=email]{box-sizing:border-box;width:100%;padding:.7rem;' +
  'border:1px solid #999;border-radius:.5rem;font:inherit}.lh-c label.k{display:flex;gap:.5rem;margin:.7rem 0;' +
  'font-size:.85rem;align-items:flex-start}.lh-c button{width:100%;padding:.8rem;border:0;border-radius:.5rem;' +
  'background:#111;color:#fff;font:inherit;font-weight:600}' +
  // The honeypot sits off-screen rather than display:none, which some bots check for.
  '.lh-hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}';

// Posts the same fields as JSON; on a network failure it falls back to the plain form post.
const SCRIPT =
  "(function(){var f=document.getElementById('lh-capture');if(!f||!window.fetch||!window.FormData)return;" +
  "f.addEventListener('submit',function(e){e.preventDefault();var d=new FormData(f);" +
  "fetch(f.getAttribute('action'),{method:'POST',credentials:'omit',headers:{'content-type':'application/json'}," +
  "body:JSON.stringify({slug:String(d.get('slug')||''),email:String(d.get('email')||'')," +
  "consent:d.get('consent')==='true',website:String(d.get('website')||'')})})" +
  ".then(function(){var p=document.createElement('p');p.className='lh-ok';" +
  "p.textContent='Thanks! You are on the list.';f.replaceChildren(p)},function(){f.submit()})})})();";

export function renderCaptureForm(input: { slug: string; orgName: string; nonce: string }): string {
  const nonce = escapeAttr(input.nonce);
  return (
    `<style nonce="${nonce}">${CSS}</style>` +
    `<form id="lh-capture" class="lh-c" method="post" action="${CAPTURE_PATH}">` +
    `<h2>Stay in touch with ${escapeHtml(input.orgName)}</h2>` +
    `<input type="hidden" name="slug" value="${escapeAttr(input.slug)}">` +
    '<input type="email" name="email" required maxlength="254" autocomplete="email" placeholder="you@example.com" aria-label="Email address">' +
    '<div class="lh-hp" aria-hidden="true"><label>Website <input type="text" name="website" value="" tabindex="-1" autocomplete="off"></label></div>' +
    `<label class="k"><input type="checkbox" name="consent" value="true" required><span>${escapeHtml(consentText(input.orgName))}</span></label>` +
    '<button type="submit">Subscribe</button></form>' +
    `<script nonce="${nonce}">${SCRIPT}</script>`
  );
}
