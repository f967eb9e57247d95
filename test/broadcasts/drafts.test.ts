import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { storeKinds } from '../helpers/stores.js';
import { type BroadcastRig, broadcastRig } from './setup.js';

const draft = {
  subject: 'Big news',
  html: '<h1>Hello</h1><p>New single out now.</p>',
  text: 'Hello! New single.',
};

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`broadcast drafts and gates on ${kind.name}`, () => {
    let rig: BroadcastRig;
    beforeEach(async () => {
      rig = await broadcastRig(kind);
    });
    afterEach(async () => {
      await rig.close();
    });

    it('creates, reads, edits and lists drafts with their counts', async () => {
      const created = await rig.call(rig.hero, 'POST', '/api/broadcasts', draft);
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(body).toEqual({
        id: expect.any(String),
        subject: 'Big news',
        html: draft.html,
        text: draft.text,
        status: 'draft',
        segmentId: null,
        counts: { queued: 0, sending: 0, sent: 0, failed: 0, skipped: 0 },
        createdAt: expect.any(String),
        sentAt: null,
      });
      const patched = await rig.call(rig.hero, 'PATCH', `/api/broadcasts/${body.id}`, {
        subject: 'Bigger news',
        text: null,
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json()).toMatchObject({
        subject: 'Bigger news',
        text: null,
        html: draft.html,
        status: 'draft',
      });
      expect((await rig.call(rig.hero, 'GET', `/api/broadcasts/${body.id}`)).json().subject).toBe(
        'Bigger news',
      );
      expect((await rig.call(rig.legend, 'GET', `/api/broadcasts/${body.id}`)).statusCode).toBe(404);
      const list = await rig.call(rig.hero, 'GET', '/api/broadcasts');
      expect(list.json().broadcasts.map((b: { id: string }) => b.id)).toEqual([body.id]);
    });

    it('validates the draft body', async () => {
      for (const bad of [
        { html: '<p>x</p>' },
        { subject: '', html: 'x' },
        { subject: 's', html: 'x', extra: 1 },
      ]) {
        const response = await rig.call(rig.hero, 'POST', '/api/broadcasts', bad);
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toBe('invalid_body');
      }
    });

    it('lists the newest 100, newest first', async () => {
      const rows = Array.from({ length: 102 }, (_, i) => {
        const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        return {
          id: randomUUID(),
          org_id: rig.hero.orgId,
          subject: `n${i}`,
          html: 'x',
          text: null,
          segment_id: null,
          created_at: at,
          updated_at: at,
          sent_at: null,
        };
      });
      await audienceDb(rig.store).insertInto('broadcasts').values(rows).execute();
      const list = (await rig.call(rig.hero, 'GET', '/api/broadcasts')).json().broadcasts;
      expect(list).toHaveLength(100);
      expect(list[0].subject).toBe('n101');
      expect(list[99].subject).toBe('n2');
      expect(list[0].status).toBe('draft');
    });

    it('needs the broadcasts plan to write (403 broadcasts) and a legend plan for a segment', async () => {
      const refused = await rig.call(rig.sidekick, 'POST', '/api/broadcasts', draft);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('broadcasts');
      const segment = (
        await rig.call(rig.legend, 'POST', '/api/segments', { name: 'FR', filter: { country: 'fr' } })
      ).json();
      const heroSegment = await rig.call(rig.hero, 'POST', '/api/broadcasts', {
        ...draft,
        segmentId: segment.id,
      });
      expect(heroSegment.statusCode).toBe(403);
      expect(heroSegment.json().error).toBe('audience_segments');
      const foreign = await rig.call(rig.legend, 'POST', '/api/broadcasts', {
        ...draft,
        segmentId: randomUUID(),
      });
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json().error).toBe('unknown_segment');
    });

    it('lets a downgraded organization read its history (flag-gated only), but not write', async () => {
      const id = (await rig.call(rig.hero, 'POST', '/api/broadcasts', draft)).json().id;
      await rig.setTier(rig.hero, 'sidekick');
      const list = await rig.call(rig.hero, 'GET', '/api/broadcasts');
      expect(list.statusCode).toBe(200);
      expect(list.json().broadcasts).toHaveLength(1);
      expect((await rig.call(rig.hero, 'GET', `/api/broadcasts/${id}`)).statusCode).toBe(200);
      expect(
        (await rig.call(rig.hero, 'PATCH', `/api/broadcasts/${id}`, { subject: 'x' })).json().error,
      ).toBe('broadcasts');
      expect((await rig.call(rig.hero, 'POST', `/api/broadcasts/${id}/send`)).json().error).toBe(
        'broadcasts',
      );
    });

    it('answers 403 feature_disabled everywhere when the broadcasts flag is off', async () => {
      const id = (await rig.call(rig.legend, 'POST', '/api/broadcasts', draft)).json().id;
      await rig.restart({ FLAGS_OFF: 'broadcasts' });
      const calls: [string, string, unknown?][] = [
        ['GET', '/api/broadcasts'],
        ['POST', '/api/broadcasts', draft],
        ['GET', `/api/broadcasts/${id}`],
        ['PATCH', `/api/broadcasts/${id}`, { subject: 'x' }],
        ['POST', `/api/broadcasts/${id}/send`],
        ['GET', '/api/segments'],
        ['POST', '/api/segments', { name: 'x', filter: {} }],
        ['DELETE', `/api/segments/${randomUUID()}`],
      ];
      for (const [method, url, body] of calls) {
        const response = await rig.call(rig.legend, method as 'GET', url, body);
        expect(response.statusCode, `${method} ${url}`).toBe(403);
        expect(response.json().error).toBe('feature_disabled');
      }
    });

    it('answers 503 not_provisioned on send when SMTP_URL is not configured', async () => {
      const unmailed = await broadcastRig(kind, { mailConfigured: false });
      try {
        const id = (await unmailed.call(unmailed.hero, 'POST', '/api/broadcasts', draft)).json().id;
        const response = await unmailed.call(unmailed.hero, 'POST', `/api/broadcasts/${id}/send`);
        expect(response.statusCode).toBe(503);
        expect(response.json().error).toBe('not_provisioned');
        expect((await unmailed.call(unmailed.hero, 'GET', `/api/broadcasts/${id}`)).json().status).toBe(
          'draft',
        );
      } finally {
        await unmailed.close();
      }
    });

    it('checks ownership before configuration: sending another organization’s broadcast is 404, not 503', async () => {
      const unmailed = await broadcastRig(kind, { mailConfigured: false });
      try {
        const id = (await unmailed.call(unmailed.hero, 'POST', '/api/broadcasts', draft)).json().id;
        const response = await unmailed.call(unmailed.legend, 'POST', `/api/broadcasts/${id}/send`);
        expect(response.statusCode).toBe(404);
        const unknown = await unmailed.call(unmailed.hero, 'POST', `/api/broadcasts/${randomUUID()}/send`);
        expect(unknown.statusCode).toBe(404);
      } finally {
        await unmailed.close();
      }
    });
  });
}
