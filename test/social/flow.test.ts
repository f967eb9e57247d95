import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialIntake } from '../../src/social/intake.js';
import { storeKinds } from '../helpers/stores.js';
import { type SocialHarness, startSocial } from './harness.js';
import { commentTrigger, connect, createLink, createRule, providerId } from './helpers.js';

/** The "done when": the whole flow against the fake provider, on each store. */
describe.each(storeKinds)('DM automation flow on $name', (kind) => {
  let h: SocialHarness;
  beforeAll(async () => {
    if (!kind.skipReason) h = await startSocial(kind);
  });
  afterAll(async () => h?.close());

  it.skipIf(kind.skipReason !== null)(
    'connect, rule, signed comment, one DM, no resend, pause, permanence',
    async () => {
      const { orgId, apiKey } = await h.org('legend');
      const { response: connected, userId } = await connect(h, orgId);
      expect(connected.statusCode).toBe(201);
      const account = connected.json();
      expect(account).toMatchObject({ provider: 'instagram', providerUserId: userId, status: 'active' });
      expect(JSON.stringify(account)).not.toMatch(/IG[A-Za-z0-9_-]{20,}/);
      expect(h.fake.subscribed.has(userId)).toBe(true);

      const link = await createLink(h, apiKey);
      const created = await createRule(h, orgId, {
        accountId: account.id,
        linkId: link.id,
        dmText: 'Thanks for asking! Here it is:',
        trigger: commentTrigger(['LINK']),
      });
      expect(created.statusCode).toBe(201);
      const rule = created.json();

      const { commentId, payload } = h.fake.comment({
        accountUserId: userId,
        fromId: '6543210987654321',
        text: 'link please!',
      });
      expect(await h.fake.deliver(h.webhookUrl, payload)).toBe(200);
      await h.intake.drain();
      expect(h.fake.sent).toHaveLength(1);
      expect(h.fake.sent[0]?.recipient).toEqual({ comment_id: commentId });
      expect(h.fake.sent[0]?.text).toBe(`Thanks for asking! Here it is: ${link.shortUrl}`);

      // Redelivery (the provider retries for 36 h), also by a fresh intake as after a restart.
      expect(await h.fake.deliver(h.webhookUrl, payload)).toBe(200);
      await h.intake.drain();
      await createSocialIntake(h.deps).process(Buffer.from(JSON.stringify(payload)));
      expect(h.fake.sent).toHaveLength(1);

      const events = await h.as(orgId, { method: 'GET', url: `/api/social/automations/${rule.id}/events` });
      expect(events.json().events).toEqual([
        expect.objectContaining({ status: 'sent', error: null, reason: null, sourceId: commentId }),
      ]);
      const stats = await h.as(orgId, { method: 'GET', url: `/api/social/automations/${rule.id}/stats` });
      expect(stats.json()).toMatchObject({
        sent: 1,
        failed: 0,
        skipped: 0,
        recipients: 1,
        link: { shortUrl: link.shortUrl },
      });

      const paused = await h.as(orgId, {
        method: 'PATCH',
        url: `/api/social/automations/${rule.id}`,
        payload: { enabled: false },
      });
      expect(paused.json().enabled).toBe(false);
      const second = h.fake.comment({ accountUserId: userId, fromId: '6543210987654322', text: 'LINK' });
      expect(await h.fake.deliver(h.webhookUrl, second.payload)).toBe(200);
      await h.intake.drain();
      expect(h.fake.sent).toHaveLength(1);

      expect(
        (await h.as(orgId, { method: 'DELETE', url: `/api/social/automations/${rule.id}` })).json(),
      ).toEqual({ deleted: true });
      expect(
        (await h.as(orgId, { method: 'DELETE', url: `/api/social/accounts/${account.id}` })).statusCode,
      ).toBe(200);
      const visit = await h.hosted.app.inject({ method: 'GET', url: `/${link.slug}` });
      expect(visit.statusCode).toBe(302);
      expect(visit.headers.location).toContain('open.spotify.com');
    },
  );

  it.skipIf(kind.skipReason !== null)('oldest matching rule wins the single private reply', async () => {
    const { orgId, apiKey } = await h.org('legend');
    const { response, userId } = await connect(h, orgId);
    const accountId = response.json().id;
    const first = await createLink(h, apiKey, 'https://example.com/first');
    const second = await createLink(h, apiKey, 'https://example.com/second');
    const older = (
      await createRule(h, orgId, {
        accountId,
        linkId: first.id,
        dmText: 'First',
        trigger: commentTrigger([]),
      })
    ).json();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = (
      await createRule(h, orgId, {
        accountId,
        linkId: second.id,
        dmText: 'Second',
        trigger: commentTrigger([]),
      })
    ).json();
    const before = h.fake.sent.length;
    const { payload } = h.fake.comment({ accountUserId: userId, fromId: '111', text: 'anything' });
    await h.fake.deliver(h.webhookUrl, payload);
    await h.intake.drain();
    expect(h.fake.sent.slice(before).map((m) => m.text)).toEqual([`First ${first.shortUrl}`]);
    const newerEvents = await h.as(orgId, {
      method: 'GET',
      url: `/api/social/automations/${newer.id}/events`,
    });
    expect(newerEvents.json().events).toEqual([]);
    expect(older.id).not.toBe(newer.id);
  });

  it.skipIf(kind.skipReason !== null)(
    'message rules answer a DM inside the window; a downgraded org never fires',
    async () => {
      const { orgId, apiKey } = await h.org('legend');
      const { response, userId } = await connect(h, orgId);
      const link = await createLink(h, apiKey);
      await createRule(h, orgId, {
        accountId: response.json().id,
        linkId: link.id,
        dmText: 'Hello',
        trigger: { type: 'message', match: { mode: 'exact', keywords: ['guide'] }, mediaId: null },
      });
      const before = h.fake.sent.length;
      await h.fake.deliver(
        h.webhookUrl,
        h.fake.message({ accountUserId: userId, fromId: '222', text: 'the guide' }).payload,
      );
      await h.fake.deliver(
        h.webhookUrl,
        h.fake.message({ accountUserId: userId, fromId: '222', text: ' Guide ' }).payload,
      );
      await h.intake.drain();
      expect(h.fake.sent.slice(before)).toEqual([
        { accountUserId: userId, recipient: { id: '222' }, text: `Hello ${link.shortUrl}` },
      ]);
      await h.hosted.accounts.setTier(orgId, 'hero');
      await h.fake.deliver(
        h.webhookUrl,
        h.fake.message({ accountUserId: userId, fromId: '223', text: 'guide' }).payload,
      );
      await h.intake.drain();
      expect(h.fake.sent.length).toBe(before + 1);
    },
  );

  it.skipIf(kind.skipReason !== null)(
    'the same account cannot be live in two organizations; revoked can move',
    async () => {
      const a = await h.org('legend');
      const b = await h.org('legend');
      const userId = providerId();
      const first = await connect(h, a.orgId, userId);
      expect(first.response.statusCode).toBe(201);
      const taken = await connect(h, b.orgId, userId);
      expect(taken.response.statusCode).toBe(409);
      expect(taken.response.json().error).toBe('social_account_taken');
      await h.as(a.orgId, { method: 'DELETE', url: `/api/social/accounts/${first.response.json().id}` });
      const moved = await connect(h, b.orgId, userId);
      expect(moved.response.statusCode).toBe(201);
    },
  );
});
