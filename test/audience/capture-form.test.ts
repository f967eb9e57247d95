import { describe, expect, it } from 'vitest';
import { captureFormAllowed, captureFormCsp, renderCaptureForm } from '../../src/audience/capture-form.js';
import { consentText } from '../../src/audience/service.js';
import { TIERS } from '../../src/tenancy/plans.js';

describe('the capture form of the rich fallback page', () => {
  const html = renderCaptureForm({ slug: 'promo', orgName: 'Acme <Records> & "Co"', nonce: 'N0nce+/=' });

  it('posts to the capture route with the slug, the email, the honeypot and the consent box', () => {
    expect(html).toContain('<form id="lh-capture" class="lh-c" method="post" action="/api/public/capture">');
    expect(html).toContain('<input type="hidden" name="slug" value="promo">');
    expect(html).toMatch(/<input type="email" name="email" required maxlength="254"/);
    expect(html).toMatch(/<input type="checkbox" name="consent" value="true" required>/);
  });

  it('hides the honeypot `website` from people: off-screen, aria-hidden, out of the tab order', () => {
    expect(html).toMatch(
      /<div class="lh-hp" aria-hidden="true">.*name="website" value="" tabindex="-1" autocomplete="off"/,
    );
    expect(html).toContain('.lh-hp{position:absolute;left:-10000px');
  });

  it('shows the server-written consent text with the organization name, escaped', () => {
    const expected = consentText('Acme &lt;Records&gt; &amp; &quot;Co&quot;');
    expect(html).toContain(expected);
    expect(html).not.toContain('<Records>');
  });

  it('nonces its style and script, and posts JSON with consent as a boolean', () => {
    expect(html).toContain('<style nonce="N0nce+/=">');
    expect(html).toContain('<script nonce="N0nce+/=">');
    expect(html).toContain("'content-type':'application/json'");
    expect(html).toContain("consent:d.get('consent')==='true'");
    expect(captureFormCsp('abc')).toEqual({ scriptSrc: "'nonce-abc'", connectSrc: "'self'" });
  });

  it('escapes a hostile slug', () => {
    const hostile = renderCaptureForm({ slug: '"><script>x</script>', orgName: 'O', nonce: 'n' });
    expect(hostile).not.toContain('<script>x');
  });

  it('renders only with the plan feature, the flag on, captureEmails on and the default host (rule 5)', () => {
    const base = { tier: 'hero' as const, flagsOff: new Set<string>(), captureEmails: true, host: '' };
    expect(captureFormAllowed(base)).toBe(true);
    expect(captureFormAllowed({ ...base, host: null })).toBe(true);
    expect(captureFormAllowed({ ...base, tier: 'legend' })).toBe(true);
    expect(captureFormAllowed({ ...base, tier: 'sidekick' })).toBe(false);
    expect(captureFormAllowed({ ...base, flagsOff: new Set(['audienceCapture']) })).toBe(false);
    expect(captureFormAllowed({ ...base, flagsOff: new Set(['broadcasts']) })).toBe(true);
    expect(captureFormAllowed({ ...base, captureEmails: false })).toBe(false);
    expect(captureFormAllowed({ ...base, host: 'go.example.com' })).toBe(false);
    expect(TIERS.filter((tier) => captureFormAllowed({ ...base, tier }))).toEqual(['hero', 'legend']);
  });
});
