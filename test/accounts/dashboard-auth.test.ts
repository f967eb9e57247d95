import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { nthMailTo, signupTokenIn } from '../helpers/mailbox.js';
import { storeKinds } from '../helpers/stores.js';

/** What a browser sends on every same-origin fetch that is not a GET. */
const ORIGIN = BASE_URL;

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`dashboard authentication on ${kind.name}`, () => {
    let h: HostedHarness;
    let smtp: SmtpSink;
    beforeAll(async () => {
      smtp = await startSmtp();
      h = await startHosted(kind, { SMTP_URL: smtp.url });
      // An instance that has its operator already: sign-ups start on SIGNUP_TIER (first-account.test.ts).
      await h.org('hero');
    });
    afterAll(async () => {
      await h?.close();
      await smtp?.close();
    });

    const json = (
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      payload?: object,
      cookie?: string,
    ) =>
      h.app.inject({
        method,
        url,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(cookie ? { cookie } : {}),
        },
        ...(payload ? { payload } : {}),
      });
    const cookieOf = (setCookie: string | string[] | undefined) => String(setCookie).split(';')[0] ?? '';
    /** The whole sign-up as a person does it: the form, the mailed link, the confirmation. */
    const signUp = async (body: { email: string; password: string; orgName: string }) => {
      const before = smtp.messages.filter((mail) => mail.to.includes(body.email.toLowerCase())).length;
      expect((await json('POST', '/api/auth/signup', body)).statusCode).toBe(202);
      const token = signupTokenIn(await nthMailTo(smtp, body.email.toLowerCase(), before + 1));
      return json('POST', '/api/auth/signup/confirm', { token });
    };

    it('sign-up mails a link; opening it creates a sidekick organization and logs in with an HttpOnly, SameSite=Lax, Secure cookie', async () => {
      const response = await json('POST', '/api/auth/signup', {
        email: 'Maya@Example.com',
        password: 'correct horse',
        orgName: 'Maya Makes',
      });
      expect(response.statusCode).toBe(202);
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.json()).toEqual({
        status: 'confirmation_sent',
        message:
          'We sent a link to maya@example.com. Open it within 24 hours to finish creating your workspace.',
        delivery: 'mail',
      });
      const mail = await nthMailTo(smtp, 'maya@example.com');
      expect(mail.headers.get('subject')).toBe('Finish creating your linkhop workspace');
      const token = signupTokenIn(mail);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Nothing exists before the link is opened.
      expect(
        (await json('POST', '/api/auth/login', { email: 'maya@example.com', password: 'correct horse' }))
          .statusCode,
      ).toBe(401);

      const confirmed = await json('POST', '/api/auth/signup/confirm', { token });
      expect(confirmed.statusCode).toBe(201);
      const setCookie = String(confirmed.headers['set-cookie']);
      expect(setCookie).toMatch(/^lh_session=[A-Za-z0-9_-]{43};/);
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Lax/);
      expect(setCookie).toMatch(/Secure/);
      const session = confirmed.json();
      expect(session.user.email).toBe('maya@example.com');
      expect(session.org).toMatchObject({ name: 'Maya Makes', tier: 'sidekick' });
      expect(session.features.linkInBio).toBe(true);
      const again = await json('GET', '/api/session', undefined, cookieOf(setCookie));
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(session);
      // A link works once.
      const replay = await json('POST', '/api/auth/signup/confirm', { token });
      expect(replay.statusCode).toBe(404);
      expect(replay.json().message).toMatch(/unknown, used or expired/);
    });

    it('a sign-up with an email that has an account answers exactly like a new one, and mails the owner instead', async () => {
      const taken = await json('POST', '/api/auth/signup', {
        email: 'maya@example.com',
        password: 'another one',
        orgName: 'X',
      });
      const fresh = await json('POST', '/api/auth/signup', {
        email: 'fresh@example.com',
        password: 'another one',
        orgName: 'X',
      });
      expect(taken.statusCode).toBe(202);
      expect(fresh.statusCode).toBe(202);
      expect(taken.json().message.replace('maya@', 'fresh@')).toBe(fresh.json().message);
      expect(Object.keys(taken.headers).sort()).toEqual(Object.keys(fresh.headers).sort());
      const notice = await nthMailTo(smtp, 'maya@example.com', 2);
      expect(notice.headers.get('subject')).toBe('You already have a linkhop account');
      expect(signupTokenIn(notice)).toBeNull();
      // The account is untouched: the old password still logs in, the new one does not.
      expect(
        (await json('POST', '/api/auth/login', { email: 'maya@example.com', password: 'another one' }))
          .statusCode,
      ).toBe(401);
      expect(
        (await json('POST', '/api/auth/login', { email: 'maya@example.com', password: 'correct horse' }))
          .statusCode,
      ).toBe(200);
    });

    it('log-in failures are one generic 401 whatever was wrong', async () => {
      const wrongPassword = await json('POST', '/api/auth/login', {
        email: 'maya@example.com',
        password: 'wrong password',
      });
      const noUser = await json('POST', '/api/auth/login', {
        email: 'nobody@example.com',
        password: 'correct horse',
      });
      expect(wrongPassword.statusCode).toBe(401);
      expect(noUser.statusCode).toBe(401);
      expect(wrongPassword.json()).toEqual(noUser.json());
    });

    it('log-in, then log-out ends the session', async () => {
      const login = await json('POST', '/api/auth/login', {
        email: 'MAYA@example.com',
        password: 'correct horse',
      });
      expect(login.statusCode).toBe(200);
      const cookie = cookieOf(login.headers['set-cookie']);
      expect((await json('GET', '/api/session', undefined, cookie)).statusCode).toBe(200);
      const logout = await h.app.inject({
        method: 'POST',
        url: '/api/auth/logout',
        headers: { cookie, origin: ORIGIN },
      });
      expect(logout.statusCode).toBe(200);
      expect(String(logout.headers['set-cookie'])).toMatch(/Max-Age=0/);
      expect((await json('GET', '/api/session', undefined, cookie)).statusCode).toBe(401);
    });

    it('dashboard routes are 401 without a session; a /v1 key is no dashboard credential', async () => {
      const { apiKey } = await h.org('legend');
      for (const url of ['/api/session', '/api/links', '/api/keys']) {
        expect((await json('GET', url)).statusCode).toBe(401);
        const withKey = await h.app.inject({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${apiKey}` },
        });
        expect(withKey.statusCode).toBe(401);
      }
    });

    it('refuses a cross-site Origin and a non-JSON mutating call (CSRF)', async () => {
      const login = await json('POST', '/api/auth/login', {
        email: 'maya@example.com',
        password: 'correct horse',
      });
      const cookie = cookieOf(login.headers['set-cookie']);
      const crossSite = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
        payload: { url: 'https://example.com' },
      });
      expect(crossSite.statusCode).toBe(403);
      expect(crossSite.json().error).toBe('csrf');
      const form = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { cookie, 'content-type': 'text/plain' },
        payload: '{"url":"https://example.com"}',
      });
      expect(form.statusCode).toBe(403);
      const sameSite = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { cookie, origin: 'https://lnk.example', 'content-type': 'application/json' },
        payload: { url: 'https://example.com' },
      });
      expect(sameSite.statusCode).toBe(201);
      const listed = await json('GET', '/api/links', undefined, cookie);
      expect(listed.json().links).toHaveLength(1);
    });

    it('refuses a body-less mutation that shows no sign of coming from the dashboard (CSRF)', async () => {
      const login = await json('POST', '/api/auth/login', {
        email: 'maya@example.com',
        password: 'correct horse',
      });
      const cookie = cookieOf(login.headers['set-cookie']);
      const linkId = (await json('GET', '/api/links', undefined, cookie)).json().links[0].id;
      const archive = (headers: Record<string, string>) =>
        h.app.inject({
          method: 'POST',
          url: `/api/links/${linkId}/archive`,
          headers: { cookie, ...headers },
        });
      // The cookie alone, as a cross-site <form method=post> or an <img> cannot set more: refused.
      const bare = await archive({});
      expect(bare.statusCode).toBe(403);
      expect(bare.json()).toMatchObject({ error: 'csrf' });
      expect(bare.json().message).toMatch(/content-type: application\/json/);
      // A browser on another site says so in Sec-Fetch-Site even without an Origin: refused.
      expect((await archive({ 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
      expect((await archive({ 'sec-fetch-site': 'same-site' })).statusCode).toBe(403);
      expect(
        (await archive({ origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' })).statusCode,
      ).toBe(403);
      // Our own pages: a same-origin Origin, or Sec-Fetch-Site: same-origin, is enough.
      expect((await archive({ origin: ORIGIN })).statusCode).toBe(200);
      expect((await archive({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    });

    it('locks an account after ten failed log-ins from any addresses, with a clear message, whatever the address', async () => {
      await signUp({ email: 'lock@example.com', password: 'right password', orgName: 'L' });
      const attempt = (password: string, address: string) =>
        h.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          remoteAddress: address,
          headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
          payload: { email: 'LOCK@example.com', password },
        });
      for (let i = 0; i < 9; i++) expect((await attempt('wrong', `203.0.113.${i + 1}`)).statusCode).toBe(401);
      const tenth = await attempt('wrong', '203.0.113.10');
      expect(tenth.statusCode).toBe(429);
      expect(tenth.json()).toMatchObject({ error: 'rate_limited' });
      expect(tenth.json().message).toMatch(/locked for 15 minutes/);
      expect(Number(tenth.headers['retry-after'])).toBeGreaterThan(800);
      // Locked now even for the right password, from a fresh address; other accounts are untouched.
      expect((await attempt('right password', '198.51.100.7')).statusCode).toBe(429);
      const other = await json('POST', '/api/auth/login', {
        email: 'maya@example.com',
        password: 'correct horse',
      });
      expect(other.statusCode).toBe(200);
    });

    it('API keys: a sidekick may not mint one (403 api); a legend mints, lists and revokes', async () => {
      const small = await signUp({ email: 'small@example.com', password: 'password1', orgName: 'Small' });
      const smallCookie = cookieOf(small.headers['set-cookie']);
      const refused = await h.app.inject({
        method: 'POST',
        url: '/api/keys',
        headers: { cookie: smallCookie, origin: ORIGIN, 'content-type': 'application/json' },
        payload: { name: 'Zapier' },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('api');

      const big = await signUp({ email: 'big@example.com', password: 'password1', orgName: 'Big' });
      await h.accounts.setTier(big.json().org.id, 'legend');
      const cookie = cookieOf(big.headers['set-cookie']);
      const minted = await h.app.inject({
        method: 'POST',
        url: '/api/keys',
        headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
        payload: { name: 'Zapier' },
      });
      expect(minted.statusCode).toBe(201);
      const { id, apiKey } = minted.json();
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(200);
      const keys = (await json('GET', '/api/keys', undefined, cookie)).json().keys;
      expect(keys.map((key: { id: string }) => key.id)).toContain(id);
      expect(JSON.stringify(keys)).not.toContain(apiKey);
      expect(
        (
          await h.app.inject({
            method: 'DELETE',
            url: `/api/keys/${id}`,
            headers: { cookie: smallCookie, origin: ORIGIN },
          })
        ).statusCode,
      ).toBe(404);
      expect(
        (
          await h.app.inject({
            method: 'DELETE',
            url: `/api/keys/${id}`,
            headers: { cookie, origin: ORIGIN },
          })
        ).json(),
      ).toEqual({ deleted: true });
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(401);
    });
  });
}
