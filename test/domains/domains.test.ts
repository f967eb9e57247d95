import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../fakes/dns-server.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Domains as owned, verified resources (issue 17, item 3): the routes, the TXT lookup against a real DNS
 * server on loopback (DNS_RESOLVER), and what a link may do with a hostname.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`/v1/domains on ${kind.name}`, () => {
    let h: HostedHarness;
    let dns: FakeDns;
    let a: { orgId: string; apiKey: string };
    let b: { orgId: string; apiKey: string };
    beforeAll(async () => {
      dns = await startFakeDns();
      h = await startHosted(kind, { DNS_RESOLVER: dns.address });
      a = await h.org('legend');
      b = await h.org('legend');
    });
    afterAll(async () => {
      await h?.close();
      await dns?.close();
    });

    const add = (apiKey: string, hostname: unknown) =>
      h.v1(apiKey, { method: 'POST', url: '/v1/domains', payload: { hostname } });
    const verify = (apiKey: string, id: string) =>
      h.v1(apiKey, { method: 'POST', url: `/v1/domains/${id}/verify` });
    /** Adds `hostname` for `apiKey`, publishes its TXT record and verifies it. */
    const own = async (apiKey: string, hostname: string) => {
      const domain = (await add(apiKey, hostname)).json();
      dns.txt.set(domain.verification.name, [domain.verification.value]);
      const verified = await verify(apiKey, domain.id);
      expect(verified.statusCode, verified.body).toBe(200);
      return verified.json();
    };
    const createLink = (apiKey: string, body: object) =>
      h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: body });

    it('POST adds a hostname unverified, with the TXT record to publish', async () => {
      const response = await add(a.apiKey, 'Links.Shop-A.example.');
      expect(response.statusCode).toBe(201);
      const domain = response.json();
      expect(domain).toMatchObject({
        hostname: 'links.shop-a.example',
        verified: false,
        verifiedAt: null,
        verification: { type: 'TXT', name: '_linkhop.links.shop-a.example' },
      });
      expect(domain.verification.value).toMatch(/^linkhop-verify=[0-9a-f]{32}$/);
      const list = (await h.v1(a.apiKey, { method: 'GET', url: '/v1/domains' })).json();
      expect(list.domains.map((d: { id: string }) => d.id)).toContain(domain.id);
      const others = (await h.v1(b.apiKey, { method: 'GET', url: '/v1/domains' })).json();
      expect(others.domains.map((d: { id: string }) => d.id)).not.toContain(domain.id);
    });

    it('stores international names as punycode', async () => {
      const response = await add(a.apiKey, 'Bücher.example');
      expect(response.statusCode).toBe(201);
      expect(response.json().hostname).toBe('xn--bcher-kva.example');
    });

    it.each([
      ['an IPv4 address', '192.0.2.7'],
      ['an IPv4 address in short form', '127.1'],
      ['an IPv6 address', '[::1]'],
      ['a port', 'links.example.com:8443'],
      ['a URL', 'https://links.example.com/'],
      ['a single label', 'localhost'],
      ['spaces', 'links example.com'],
      ['an empty string', ''],
      ['the service’s own host', 'LNK.example'],
      ['a name under the service’s host', 'evil.lnk.example'],
      ['a label over 63 characters', `${'a'.repeat(64)}.example`],
    ])('400 invalid_body on %s', async (_name, hostname) => {
      const response = await add(a.apiKey, hostname);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toBe('invalid_body');
    });

    /** A dashboard member of a new organization at `tier`: its session cookie. */
    const member = async (tier: 'sidekick' | 'hero') => {
      const email = `domains-${tier}-${Math.random().toString(36).slice(2, 10)}@example.com`;
      const password = 'correct horse battery';
      await h.accounts.createOrganization({ name: `Dash ${tier}`, tier, email, password });
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: { email, password },
      });
      return String(login.headers['set-cookie']).split(';')[0] ?? '';
    };

    it('a plan without customDomains gets 403 custom_domains; links cannot take a hostname either', async () => {
      const cookie = await member('sidekick');
      const headers = { cookie, 'content-type': 'application/json' };
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/domains',
        headers,
        payload: { hostname: 'go.sidekick.example' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toBe('custom_domains');
      const link = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers,
        payload: { url: 'https://example.com/s', hostname: 'go.links-a.example' },
      });
      expect(link.statusCode).toBe(403);
      expect(link.json().error).toBe('custom_domains');
    });

    it('verify: 409 domain_unverified saying what was found, then 200 once the record is there', async () => {
      const domain = (await add(a.apiKey, 'go.verify.example')).json();
      const missing = await verify(a.apiKey, domain.id);
      expect(missing.statusCode).toBe(409);
      expect(missing.json()).toMatchObject({
        error: 'domain_unverified',
        found: [],
        expected: { type: 'TXT', name: '_linkhop.go.verify.example', value: domain.verification.value },
      });
      expect(dns.queries).toContain('TXT _linkhop.go.verify.example');

      dns.txt.set('_linkhop.go.verify.example', ['v=spf1 -all', 'linkhop-verify=somebody-else']);
      const wrong = await verify(a.apiKey, domain.id);
      expect(wrong.statusCode).toBe(409);
      expect(wrong.json().found).toEqual(['v=spf1 -all', 'linkhop-verify=somebody-else']);
      expect(wrong.json().message).toContain(domain.verification.value);

      dns.txt.set('_linkhop.go.verify.example', ['v=spf1 -all', domain.verification.value]);
      const ok = await verify(a.apiKey, domain.id);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ id: domain.id, verified: true, verifiedAt: expect.any(String) });
      // Verified for good: the record may go.
      dns.txt.delete('_linkhop.go.verify.example');
      expect((await verify(a.apiKey, domain.id)).json().verified).toBe(true);
    });

    it('a DNS failure is a 409 domain_unverified that says the lookup failed', async () => {
      const domain = (await add(a.apiKey, 'go.servfail.example')).json();
      dns.failing = true;
      try {
        const response = await verify(a.apiKey, domain.id);
        expect(response.statusCode).toBe(409);
        expect(response.json().error).toBe('domain_unverified');
        expect(response.json().message).toMatch(/lookup .* failed \(ESERVFAIL\)/);
      } finally {
        dns.failing = false;
      }
    });

    it('a hostname belongs to one organization: 409 domain_taken', async () => {
      // B's pending claim does not block A; once A verifies, B can neither verify nor add it again.
      const pending = (await add(b.apiKey, 'go.contested.example')).json();
      await own(a.apiKey, 'go.contested.example');
      dns.txt.set('_linkhop.go.contested.example', [pending.verification.value]);
      const late = await verify(b.apiKey, pending.id);
      expect(late.statusCode).toBe(409);
      expect(late.json().error).toBe('domain_taken');
      expect((await add(b.apiKey, 'GO.contested.example')).json().error).toBe('domain_taken');
      // The same organization adding it twice is refused too.
      const twice = await add(a.apiKey, 'go.contested.example');
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error).toBe('domain_taken');
    });

    it('another organization cannot verify or delete a domain it does not own: 404', async () => {
      const domain = (await add(a.apiKey, 'go.private.example')).json();
      expect((await verify(b.apiKey, domain.id)).statusCode).toBe(404);
      const removed = await h.v1(b.apiKey, { method: 'DELETE', url: `/v1/domains/${domain.id}` });
      expect(removed.statusCode).toBe(404);
      for (const id of ['not-a-uuid', '%00', 'x'.repeat(64)]) {
        expect((await verify(a.apiKey, id)).statusCode, id).toBe(404);
      }
    });

    it('a link’s hostname must be a verified domain of its own organization: 400 unknown_domain', async () => {
      await own(a.apiKey, 'go.links-a.example');
      await add(a.apiKey, 'go.pending-a.example');
      const theirs = await createLink(b.apiKey, {
        url: 'https://example.com/b',
        hostname: 'go.links-a.example',
      });
      expect(theirs.statusCode).toBe(400);
      expect(theirs.json().error).toBe('unknown_domain');
      const pending = await createLink(a.apiKey, {
        url: 'https://example.com/a',
        hostname: 'go.pending-a.example',
      });
      expect(pending.json().error).toBe('unknown_domain');
      const free = await createLink(a.apiKey, { url: 'https://example.com/a', hostname: 'nobody.example' });
      expect(free.json().error).toBe('unknown_domain');

      const mine = await createLink(a.apiKey, {
        url: 'https://example.com/a',
        hostname: 'GO.links-a.example',
      });
      expect(mine.statusCode, mine.body).toBe(201);
      expect(mine.json().shortUrl).toMatch(/^https:\/\/go\.links-a\.example\//);

      // PATCH onto another organization's domain, and bulk items, are refused the same way.
      const plain = (await createLink(b.apiKey, { url: 'https://example.com/plain' })).json();
      const moved = await h.v1(b.apiKey, {
        method: 'PATCH',
        url: `/v1/links/${plain.id}`,
        payload: { hostname: 'go.links-a.example' },
      });
      expect(moved.statusCode).toBe(400);
      expect(moved.json().error).toBe('unknown_domain');
      const bulk = await h.v1(b.apiKey, {
        method: 'POST',
        url: '/v1/links/bulk',
        payload: {
          links: [
            { url: 'https://example.com/1', hostname: 'go.links-a.example' },
            { url: 'https://example.com/2' },
          ],
        },
      });
      expect(bulk.statusCode).toBe(200);
      const [refused, made] = bulk.json().results;
      expect(refused.error).toBe('unknown_domain');
      expect(made.slug).toEqual(expect.any(String));
    });

    it('a link on a custom domain answers only there; other hosts get the default host’s links', async () => {
      await own(a.apiKey, 'go.served.example');
      const custom = await createLink(a.apiKey, {
        url: 'https://example.com/custom',
        slug: 'spring',
        hostname: 'go.served.example',
      });
      expect(custom.statusCode, custom.body).toBe(201);
      await createLink(b.apiKey, { url: 'https://example.com/default', slug: 'spring' });
      const visit = (host: string) =>
        h.app.inject({ method: 'GET', url: '/spring', headers: { host, 'user-agent': UA.desktopChrome } });
      expect((await visit('go.served.example')).headers.location).toBe('https://example.com/custom');
      expect((await visit('GO.SERVED.EXAMPLE:443')).headers.location).toBe('https://example.com/custom');
      for (const host of ['lnk.example', '203.0.113.9', 'go.pending-a.example', 'go.unknown.example']) {
        expect((await visit(host)).headers.location, host).toBe('https://example.com/default');
      }
    });

    it('DELETE: 409 domain_in_use while a link is on it, then 200', async () => {
      await own(a.apiKey, 'go.busy.example');
      const list = (await h.v1(a.apiKey, { method: 'GET', url: '/v1/domains' })).json();
      const domain = list.domains.find((d: { hostname: string }) => d.hostname === 'go.busy.example');
      const link = (
        await createLink(a.apiKey, { url: 'https://example.com/x', hostname: 'go.busy.example' })
      ).json();
      await h.v1(a.apiKey, { method: 'POST', url: `/v1/links/${link.id}/archive` });
      const busy = await h.v1(a.apiKey, { method: 'DELETE', url: `/v1/domains/${domain.id}` });
      expect(busy.statusCode).toBe(409);
      expect(busy.json()).toMatchObject({ error: 'domain_in_use', links: 1 });
      // Archived links keep redirecting, so they hold the domain too; moving the link frees it.
      await h.v1(a.apiKey, { method: 'PATCH', url: `/v1/links/${link.id}`, payload: { hostname: null } });
      const done = await h.v1(a.apiKey, { method: 'DELETE', url: `/v1/domains/${domain.id}` });
      expect(done.statusCode).toBe(200);
      expect(done.json()).toEqual({ deleted: true });
      const after = await createLink(a.apiKey, { url: 'https://example.com/y', hostname: 'go.busy.example' });
      expect(after.json().error).toBe('unknown_domain');
    });

    it('the dashboard has the same routes under /api, and both are in the OpenAPI document', async () => {
      const cookie = await member('hero');
      const headers = { cookie, 'content-type': 'application/json' };
      const created = await h.app.inject({
        method: 'POST',
        url: '/api/domains',
        headers,
        payload: { hostname: 'go.dash.example' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const domain = created.json();
      dns.txt.set(domain.verification.name, [domain.verification.value]);
      // No body: the browser's fetch sends the page's Origin, as it does on every POST.
      const verified = await h.app.inject({
        method: 'POST',
        url: `/api/domains/${domain.id}/verify`,
        headers: { cookie, origin: 'https://lnk.example' },
      });
      expect(verified.json().verified).toBe(true);
      const listed = await h.app.inject({ method: 'GET', url: '/api/domains', headers: { cookie } });
      expect(listed.json().domains).toHaveLength(1);
      const link = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers,
        payload: { url: 'https://example.com/dash', hostname: 'go.dash.example' },
      });
      expect(link.statusCode, link.body).toBe(201);

      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.paths['/v1/domains'].post.operationId).toBe('createDomain');
      expect(doc.paths['/v1/domains/{id}/verify'].post.operationId).toBe('verifyDomain');
      expect(doc.paths['/api/domains/{id}'].delete.operationId).toBe('dashboardDeleteDomain');
      expect(doc.components.schemas.Domain).toBeDefined();
    });
  });
}
