import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/receipts/service.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`QR codes and permanence receipts on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    let link: { id: string; shortUrl: string; slug: string; destination: string; createdAt: string };
    beforeAll(async () => {
      h = await startHosted(kind);
      key = (await h.org('legend')).apiKey;
      link = (
        await h.v1(key, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com/qr' } })
      ).json();
    });
    afterAll(async () => h?.close());

    it('serves an SVG QR code by default', async () => {
      const response = await h.v1(key, { method: 'GET', url: `/v1/links/${link.id}/qr` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(response.body).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    });

    it('serves a PNG of the requested size and colours', async () => {
      const response = await h.v1(key, {
        method: 'GET',
        url: `/v1/links/${link.id}/qr?format=png&size=256&margin=2&fg=%23112233&bg=ffffff&ecl=H`,
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('image/png');
      const png = response.rawPayload;
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBe(256);
    });

    it.each(['size=64', 'size=4096', 'margin=17', 'fg=red', 'ecl=X', 'format=gif', 'colour=1'])(
      'refuses %s with 400',
      async (query) => {
        const response = await h.v1(key, { method: 'GET', url: `/v1/links/${link.id}/qr?${query}` });
        expect(response.statusCode).toBe(400);
      },
    );

    it('another organization gets 404', async () => {
      const other = await h.org('legend');
      expect((await h.v1(other.apiKey, { method: 'GET', url: `/v1/links/${link.id}/qr` })).statusCode).toBe(
        404,
      );
      expect(
        (await h.v1(other.apiKey, { method: 'GET', url: `/v1/links/${link.id}/receipt` })).statusCode,
      ).toBe(404);
    });

    it('issues a receipt that verifies offline against the published Ed25519 key', async () => {
      const response = await h.v1(key, { method: 'GET', url: `/v1/links/${link.id}/receipt` });
      expect(response.statusCode).toBe(200);
      const receipt = response.json();
      expect(receipt).toMatchObject({
        linkId: link.id,
        slug: link.slug,
        shortUrl: link.shortUrl,
        destination: link.destination,
        createdAt: link.createdAt,
      });
      const keys = (
        await h.app.inject({ method: 'GET', url: '/.well-known/linkhop-receipt-keys.json' })
      ).json();
      expect(keys.keys).toHaveLength(1);
      const published = keys.keys[0];
      expect(published.alg).toBe('Ed25519');
      expect(published.keyId).toBe(receipt.keyId);
      const publicKey = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: published.publicKey },
        format: 'jwk',
      });
      const { signature, ...fields } = receipt;
      const message = Buffer.from(canonicalJson(fields), 'utf8');
      expect(verify(null, message, publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
      const tampered = Buffer.from(canonicalJson({ ...fields, destination: 'https://evil.example' }), 'utf8');
      expect(verify(null, tampered, publicKey, Buffer.from(signature, 'base64url'))).toBe(false);
    });

    it('canonical JSON sorts keys', () => {
      expect(canonicalJson({ b: '1', a: '2' })).toBe('{"a":"2","b":"1"}');
    });
  });
}

describe('QR customisation is gated by plan (through the dashboard)', () => {
  it('a sidekick gets the plain QR, and 403 qr_customization for anything beyond the format', async () => {
    const { sqliteKind } = await import('../helpers/stores.js');
    const h = await startHosted(sqliteKind);
    try {
      const { cookie } = await h.session({ email: 'qr@example.com', orgName: 'QR' });
      const link = (
        await h.app.inject({
          method: 'POST',
          url: '/api/links',
          headers: { cookie, 'content-type': 'application/json' },
          payload: { url: 'https://example.com/qr' },
        })
      ).json();
      const plain = await h.app.inject({
        method: 'GET',
        url: `/api/links/${link.id}/qr?format=png`,
        headers: { cookie },
      });
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-type']).toBe('image/png');
      const custom = await h.app.inject({
        method: 'GET',
        url: `/api/links/${link.id}/qr?size=256`,
        headers: { cookie },
      });
      expect(custom.statusCode).toBe(403);
      expect(custom.json().error).toBe('qr_customization');
    } finally {
      await h.close();
    }
  });
});
