import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { addContact } from '../audience/setup.js';
import { storeKinds } from '../helpers/stores.js';
import { BASE, type BroadcastRig, broadcastRig } from './setup.js';

const draft = { subject: 'Tour dates', html: '<p>We are on tour &amp; more</p>' };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`broadcast sending over SMTP on ${kind.name}`, () => {
    let rig: BroadcastRig;
    const recipients = (broadcastId: string) =>
      audienceDb(rig.store)
        .selectFrom('broadcast_recipients as r')
        .leftJoin('contacts as c', 'c.id', 'r.contact_id')
        .select(['c.email', 'r.status', 'r.reason', 'r.sent_at', 'r.unsubscribe_token_hash'])
        .where('r.broadcast_id', '=', broadcastId)
        .orderBy('c.email')
        .execute();
    const createAndSend = async (body: Record<string, unknown> = draft) => {
      const id = (await rig.call(rig.legend, 'POST', '/api/broadcasts', body)).json().id as string;
      const sent = await rig.call(rig.legend, 'POST', `/api/broadcasts/${id}/send`);
      return { id, sent };
    };

    beforeEach(async () => {
      rig = await broadcastRig(kind);
    });
    afterEach(async () => {
      await rig.close();
    });

    it('queues one row per contact, sends in the background, and skips unsubscribed and blank consent', async () => {
      const org = rig.legend.orgId;
      await addContact(rig.store, org, { email: 'ann@example.com', createdAt: at(1) });
      await addContact(rig.store, org, { email: 'bob@example.com', createdAt: at(2), unsubscribedAt: at(3) });
      await addContact(rig.store, org, { email: 'cat@example.com', createdAt: at(3), consentText: '' });
      await addContact(rig.store, org, { email: 'dan@example.com', createdAt: at(4) });
      await addContact(rig.store, org, { email: 'eve@example.com', createdAt: at(5) });
      rig.smtp.reject.add('dan@example.com');
      const { id, sent } = await createAndSend();
      expect(sent.statusCode).toBe(202);
      expect(sent.json()).toMatchObject({ status: 'sending', counts: { queued: 5, sending: 0, sent: 0 } });

      await rig.worker.drain();
      expect(rig.smtp.messages.map((m) => m.to).sort()).toEqual([['ann@example.com'], ['eve@example.com']]);
      expect(await recipients(id)).toMatchObject([
        { email: 'ann@example.com', status: 'sent', reason: null, sent_at: expect.any(String) },
        { email: 'bob@example.com', status: 'skipped', reason: 'unsubscribed', sent_at: null },
        { email: 'cat@example.com', status: 'skipped', reason: 'no_consent', sent_at: null },
        { email: 'dan@example.com', status: 'failed', reason: 'smtp_550', sent_at: null },
        { email: 'eve@example.com', status: 'sent', reason: null },
      ]);
      const done = (await rig.call(rig.legend, 'GET', `/api/broadcasts/${id}`)).json();
      expect(done).toMatchObject({
        status: 'sent',
        counts: { queued: 0, sending: 0, sent: 2, failed: 1, skipped: 2 },
        sentAt: expect.any(String),
      });
      const list = (await rig.call(rig.legend, 'GET', '/api/broadcasts')).json().broadcasts;
      expect(list[0]).toMatchObject({ id, status: 'sent' });
    });

    it('sends RFC 8058 one-click unsubscribe headers with an opaque token, and the message itself', async () => {
      await addContact(rig.store, rig.legend.orgId, { email: 'ann@example.com', createdAt: at(1) });
      const { id } = await createAndSend({ ...draft, text: 'Plain tour dates' });
      await rig.worker.drain();
      const [mail] = rig.smtp.messages;
      expect(mail?.from).toBe('news@acme.example');
      expect(mail?.headers.get('subject')).toBe('Tour dates');
      expect(mail?.headers.get('from')).toBe('Acme News <news@acme.example>');
      expect(mail?.headers.get('to')).toBe('ann@example.com');
      expect(mail?.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      const header = mail?.headers.get('list-unsubscribe') ?? '';
      const match = /^<https:\/\/lnk\.example\/u\/([A-Za-z0-9_-]{43})>$/.exec(header);
      expect(match, header).not.toBeNull();
      const token = match?.[1] ?? '';
      expect(mail?.raw).toContain('Plain tour dates');
      expect(mail?.raw.replace(/=\r\n/g, '')).toContain(`${BASE}/u/${token}`);
      // Only a hash is stored, never the token itself.
      const [row] = await recipients(id);
      expect(row?.unsubscribe_token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(
        JSON.stringify(await audienceDb(rig.store).selectFrom('broadcast_recipients').selectAll().execute()),
      ).not.toContain(token);
    });

    it('GET /u/{token} shows a confirmation page and changes nothing; POST unsubscribes; later sends skip', async () => {
      const contactId = await addContact(rig.store, rig.legend.orgId, {
        email: 'ann@example.com',
        createdAt: at(1),
      });
      await createAndSend();
      await rig.worker.drain();
      const url = /<([^>]+)>/.exec(rig.smtp.messages[0]?.headers.get('list-unsubscribe') ?? '')?.[1] ?? '';
      const path = new URL(url).pathname;

      const page = await rig.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('<form method="post"><button type="submit">Unsubscribe</button></form>');
      const detail = async () => (await rig.call(rig.legend, 'GET', `/api/audience/${contactId}`)).json();
      expect((await detail()).unsubscribedAt).toBeNull();

      const oneClick = await rig.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://mail.example' },
        payload: 'List-Unsubscribe=One-Click',
      });
      expect(oneClick.statusCode).toBe(200);
      const unsubscribedAt = (await detail()).unsubscribedAt;
      expect(unsubscribedAt).toEqual(expect.any(String));
      expect((await rig.app.inject({ method: 'POST', url: path })).statusCode).toBe(200);
      expect((await detail()).unsubscribedAt).toBe(unsubscribedAt);
      expect((await rig.app.inject({ method: 'GET', url: path })).body).toContain('You are unsubscribed');

      const second = await createAndSend({ subject: 'Again', html: '<p>x</p>' });
      await rig.worker.drain();
      expect(rig.smtp.messages).toHaveLength(1);
      expect(await recipients(second.id)).toMatchObject([{ status: 'skipped', reason: 'unsubscribed' }]);
      expect((await detail()).broadcasts).toEqual([
        { id: second.id, subject: 'Again', status: 'skipped', reason: 'unsubscribed', sentAt: null },
        {
          id: expect.any(String),
          subject: 'Tour dates',
          status: 'sent',
          reason: null,
          sentAt: expect.any(String),
        },
      ]);
    });

    it('answers 404 to unknown and malformed unsubscribe tokens', async () => {
      for (const token of ['A'.repeat(43), 'short', '%3Cscript%3E']) {
        expect((await rig.app.inject({ method: 'GET', url: `/u/${token}` })).statusCode).toBe(404);
        expect((await rig.app.inject({ method: 'POST', url: `/u/${token}` })).statusCode).toBe(404);
      }
    });

    it('marks a broadcast failed when every recipient failed, and sent when nobody matches', async () => {
      await addContact(rig.store, rig.legend.orgId, { email: 'dan@example.com', createdAt: at(1) });
      rig.smtp.reject.add('dan@example.com');
      const { id } = await createAndSend();
      await rig.worker.drain();
      expect((await rig.call(rig.legend, 'GET', `/api/broadcasts/${id}`)).json()).toMatchObject({
        status: 'failed',
        counts: { failed: 1 },
      });
      const empty = await rig.call(rig.hero, 'POST', '/api/broadcasts', draft);
      const sent = await rig.call(rig.hero, 'POST', `/api/broadcasts/${empty.json().id}/send`);
      expect(sent.statusCode).toBe(202);
      expect(sent.json()).toMatchObject({ status: 'sending', counts: { queued: 0 } });
      await rig.worker.drain();
      const settled = await rig.call(rig.hero, 'GET', `/api/broadcasts/${empty.json().id}`);
      expect(settled.json()).toMatchObject({ status: 'sent', sentAt: expect.any(String) });
    });

    it('refuses to send or edit twice: 409 broadcast_not_draft', async () => {
      const { id } = await createAndSend();
      const again = await rig.call(rig.legend, 'POST', `/api/broadcasts/${id}/send`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toBe('broadcast_not_draft');
      const edit = await rig.call(rig.legend, 'PATCH', `/api/broadcasts/${id}`, { subject: 'late' });
      expect(edit.statusCode).toBe(409);
    });

    it('fails a row left sending by a crashed pass as interrupted, and never mails it twice', async () => {
      await addContact(rig.store, rig.legend.orgId, { email: 'ann@example.com', createdAt: at(1) });
      const { id } = await createAndSend();
      await audienceDb(rig.store)
        .updateTable('broadcast_recipients')
        .set({ status: 'sending', claim_token: 'dead', claimed_until: at(0) })
        .execute();
      await rig.worker.drain();
      expect(rig.smtp.messages).toHaveLength(0);
      expect(await recipients(id)).toMatchObject([{ status: 'failed', reason: 'interrupted' }]);
      expect((await rig.call(rig.legend, 'GET', `/api/broadcasts/${id}`)).json().status).toBe('failed');
    });

    it('keeps a deleted contact out of the send and out of the recipient rows', async () => {
      const gone = await addContact(rig.store, rig.legend.orgId, {
        email: 'gone@example.com',
        createdAt: at(1),
      });
      const { id } = await createAndSend();
      expect((await rig.call(rig.legend, 'DELETE', `/api/audience/${gone}`)).statusCode).toBe(200);
      await rig.worker.drain();
      expect(rig.smtp.messages).toHaveLength(0);
      expect(await recipients(id)).toMatchObject([
        { email: null, status: 'skipped', reason: 'contact_deleted' },
      ]);
    });

    it('sends in the background once the send call has answered 202', async () => {
      const background = await broadcastRig(kind, { background: true });
      try {
        await addContact(background.store, background.legend.orgId, {
          email: 'ann@example.com',
          createdAt: at(1),
        });
        const id = (await background.call(background.legend, 'POST', '/api/broadcasts', draft)).json().id;
        const sent = await background.call(background.legend, 'POST', `/api/broadcasts/${id}/send`);
        expect(sent.statusCode).toBe(202);
        expect(sent.json().status).toBe('sending');
        await vi.waitFor(
          async () => {
            const body = (await background.call(background.legend, 'GET', `/api/broadcasts/${id}`)).json();
            expect(body.status).toBe('sent');
          },
          { timeout: 5000, interval: 50 },
        );
        expect(background.smtp.messages).toHaveLength(1);
      } finally {
        await background.close();
      }
    });
  });
}
