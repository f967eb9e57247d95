import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteKind } from '../helpers/stores.js';
import { CRON_SECRET, type SocialHarness, startSocial, VERIFY_TOKEN } from './harness.js';
import { commentTrigger, connect, createLink, createRule } from './helpers.js';

/** The public webhook (handshake, signature, size) and the internal refresh route's guards. */
describe('social webhook intake', () => {
  let h: SocialHarness;
  beforeAll(async () => {
    h = await startSocial(sqliteKind);
  });
  afterAll(async () => h.close());

  it('handshake: 200 with the challenge verbatim as text; 403 without echo otherwise', async () => {
    expect(await h.fake.handshake(h.webhookUrl, VERIFY_TOKEN)).toBe(true);
    const ok = await h.app.inject({
      method: 'GET',
      url: `/api/public/social/webhook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${VERIFY_TOKEN}`,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.body).toBe('1158201444');
    for (const query of [
      'hub.mode=subscribe&hub.challenge=42&hub.verify_token=wrong',
      'hub.mode=subscribe&hub.challenge=42',
      `hub.mode=unsubscribe&hub.challenge=42&hub.verify_token=${VERIFY_TOKEN}`,
    ]) {
      const refused = await h.app.inject({ method: 'GET', url: `/api/public/social/webhook?${query}` });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).not.toContain('42');
    }
  });

  it('handshake and delivery fail closed when nothing is configured', async () => {
    const bare = await startSocial(sqliteKind, { provisioned: false, verifyToken: undefined });
    try {
      const handshake = await bare.app.inject({
        method: 'GET',
        url: '/api/public/social/webhook?hub.mode=subscribe&hub.challenge=42&hub.verify_token=',
      });
      expect(handshake.statusCode).toBe(403);
      expect(handshake.body).not.toContain('42');
      const body = JSON.stringify({ object: 'instagram', entry: [] });
      const post = await bare.app.inject({
        method: 'POST',
        url: '/api/public/social/webhook',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': bare.fake.sign(body) },
        payload: body,
      });
      expect(post.statusCode).toBe(403);
    } finally {
      await bare.close();
    }
  });

  it('delivery: 403 for an absent, malformed or wrong signature; 200 for a good one', async () => {
    const body = JSON.stringify({ object: 'instagram', entry: [] });
    const send = (signature?: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/public/social/webhook',
        headers: {
          'content-type': 'application/json',
          ...(signature ? { 'x-hub-signature-256': signature } : {}),
        },
        payload: body,
      });
    expect((await send()).statusCode).toBe(403);
    expect((await send('sha1=abc')).statusCode).toBe(403);
    expect((await send(`sha256=${'0'.repeat(64)}`)).statusCode).toBe(403);
    // Signed over other bytes (re-serialised JSON) does not match.
    expect((await send(h.fake.sign(JSON.stringify({ entry: [], object: 'instagram' })))).statusCode).toBe(
      403,
    );
    expect((await send(h.fake.sign(body))).statusCode).toBe(200);
  });

  it('malformed payloads, unknown accounts and unmatched comments all answer the same 200', async () => {
    const payloads = [
      'not json at all',
      JSON.stringify({ object: 'page', entry: [] }),
      JSON.stringify(
        h.fake.comment({ accountUserId: '0', fromId: '1', text: 'This is an example.' }).payload,
      ),
    ];
    for (const body of payloads) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/public/social/webhook',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': h.fake.sign(body) },
        payload: body,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ received: true });
    }
    await h.intake.drain();
  });

  it('413 over 1 MB, declared in content-length', async () => {
    const body = 'x'.repeat(1_048_577);
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/public/social/webhook',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': h.fake.sign(body) },
      payload: body,
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toBe('payload_too_large');
  });

  it('413 over 1 MB, measured while reading a chunked body', async () => {
    const url = new URL(h.webhookUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 20) {
          sent += 1;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
  });

  it('a text with a link slipped into the rule is refused again at send time', async () => {
    const { orgId, apiKey } = await h.org('legend');
    const { response, userId } = await connect(h, orgId);
    const link = await createLink(h, apiKey);
    const rule = (
      await createRule(h, orgId, {
        accountId: response.json().id,
        linkId: link.id,
        dmText: 'Hi',
        trigger: commentTrigger([]),
      })
    ).json();
    await h.db
      .updateTable('dm_automations')
      .set({ dm_text: 'Hi, see evil.com' })
      .where('id', '=', rule.id)
      .execute();
    const before = h.fake.sent.length;
    await h.fake.deliver(
      h.webhookUrl,
      h.fake.comment({ accountUserId: userId, fromId: '9', text: 'x' }).payload,
    );
    await h.intake.drain();
    expect(h.fake.sent.length).toBe(before);
    const events = (
      await h.as(orgId, { method: 'GET', url: `/api/social/automations/${rule.id}/events` })
    ).json().events;
    expect(events[0]).toMatchObject({ status: 'failed', error: 'raw_link_in_dm_text' });
  });

  it('the refresh route: 401 wrong or absent secret, 503 unconfigured, 200 counts', async () => {
    const post = (headers: Record<string, string>) =>
      h.app.inject({ method: 'POST', url: '/internal/social-refresh', headers });
    expect((await post({})).statusCode).toBe(401);
    expect((await post({ 'x-cron-secret': 'nope' })).statusCode).toBe(401);
    const ok = await post({ 'x-cron-secret': CRON_SECRET });
    expect(ok.statusCode).toBe(200);
    expect(Object.keys(ok.json()).sort()).toEqual([
      'errors',
      'needsReconnect',
      'refreshed',
      'scanned',
      'skipped',
    ]);
    const noCron = await startSocial(sqliteKind, { cron: false });
    try {
      const refused = await noCron.app.inject({
        method: 'POST',
        url: '/internal/social-refresh',
        headers: { 'x-cron-secret': CRON_SECRET },
      });
      expect(refused.statusCode).toBe(503);
    } finally {
      await noCron.close();
    }
  });
});
