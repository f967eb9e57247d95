import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addContact } from '../audience/setup.js';
import { storeKinds } from '../helpers/stores.js';
import { type BroadcastRig, broadcastRig } from './setup.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`audience segments on ${kind.name}`, () => {
    let rig: BroadcastRig;
    beforeEach(async () => {
      rig = await broadcastRig(kind);
      const org = rig.legend.orgId;
      await addContact(rig.store, org, {
        email: 'a@example.com',
        createdAt: '2026-01-31T23:59:59.000Z',
        sourceSlug: 'promo',
        country: 'FR',
      });
      await addContact(rig.store, org, {
        email: 'b@example.com',
        createdAt: '2026-02-01T00:00:00.000Z',
        sourceSlug: 'promo',
        country: 'DE',
      });
      await addContact(rig.store, org, {
        email: 'c@example.com',
        createdAt: '2026-02-15T12:00:00.000Z',
        sourceSlug: 'tour',
        country: 'FR',
      });
      await addContact(rig.store, org, {
        email: 'd@example.com',
        createdAt: '2026-03-01T00:00:00.000Z',
        sourceSlug: null,
        country: null,
      });
      await addContact(rig.store, rig.hero.orgId, {
        email: 'x@example.com',
        createdAt: '2026-02-02T00:00:00.000Z',
        sourceSlug: 'promo',
        country: 'FR',
      });
    });
    afterEach(async () => {
      await rig.close();
    });
    const count = async (filter: Record<string, string>) => {
      const response = await rig.call(rig.legend, 'POST', '/api/segments', { name: 'probe', filter });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().count as number;
    };

    it('creates, lists and deletes segments with their current count', async () => {
      const created = await rig.call(rig.legend, 'POST', '/api/segments', {
        name: ' French fans ',
        filter: { country: 'fr' },
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({
        id: expect.any(String),
        name: 'French fans',
        filter: { country: 'FR' },
        count: 2,
        createdAt: expect.any(String),
      });
      const list = await rig.call(rig.legend, 'GET', '/api/segments');
      expect(list.json()).toEqual({ segments: [created.json()] });
      expect((await rig.call(rig.hero, 'DELETE', `/api/segments/${created.json().id}`)).statusCode).toBe(404);
      const deleted = await rig.call(rig.legend, 'DELETE', `/api/segments/${created.json().id}`);
      expect(deleted.json()).toEqual({ deleted: true });
      expect((await rig.call(rig.legend, 'GET', '/api/segments')).json()).toEqual({ segments: [] });
    });

    it('filters by source slug, country and an inclusive capture date range', async () => {
      expect(await count({})).toBe(4);
      expect(await count({ sourceSlug: 'promo' })).toBe(2);
      expect(await count({ sourceSlug: 'promo', country: 'FR' })).toBe(1);
      expect(await count({ capturedFrom: '2026-02-01' })).toBe(3);
      expect(await count({ capturedTo: '2026-01-31' })).toBe(1);
      expect(await count({ capturedFrom: '2026-02-01', capturedTo: '2026-02-28' })).toBe(2);
      expect(await count({ capturedFrom: '2026-02-01T00:00:00Z', capturedTo: '2026-02-15T12:00:00Z' })).toBe(
        2,
      );
      expect(await count({ capturedTo: '2026-02-01T00:00:00+01:00' })).toBe(0);
      expect(await count({ capturedTo: '2026-02-01T01:00:00+01:00' })).toBe(2);
    });

    it('refuses malformed filters with 400', async () => {
      for (const filter of [{ country: 'FRA' }, { capturedFrom: 'yesterday' }, { other: 'x' }]) {
        const response = await rig.call(rig.legend, 'POST', '/api/segments', { name: 'bad', filter });
        expect(response.statusCode).toBe(400);
      }
    });

    it('needs audienceSegments (legend): 403 audience_segments below', async () => {
      for (const [method, url] of [
        ['POST', '/api/segments'],
        ['GET', '/api/segments'],
      ] as const) {
        const response = await rig.call(
          rig.hero,
          method,
          url,
          method === 'POST' ? { name: 'x', filter: {} } : undefined,
        );
        expect(response.statusCode).toBe(403);
        expect(response.json().error).toBe('audience_segments');
      }
    });

    it('sends a broadcast to the segment only', async () => {
      const segment = (
        await rig.call(rig.legend, 'POST', '/api/segments', {
          name: 'promo',
          filter: { sourceSlug: 'promo' },
        })
      ).json();
      const created = await rig.call(rig.legend, 'POST', '/api/broadcasts', {
        subject: 'Hi',
        html: '<p>hi</p>',
        segmentId: segment.id,
      });
      expect(created.json().segmentId).toBe(segment.id);
      const sent = await rig.call(rig.legend, 'POST', `/api/broadcasts/${created.json().id}/send`);
      expect(sent.json().counts.queued).toBe(2);
      await rig.worker.drain();
      expect(rig.smtp.messages.map((m) => m.to[0]).sort()).toEqual(['a@example.com', 'b@example.com']);
    });

    it('refuses to send to a segment deleted since the draft: 400 unknown_segment', async () => {
      const segment = (await rig.call(rig.legend, 'POST', '/api/segments', { name: 'p', filter: {} })).json();
      const id = (
        await rig.call(rig.legend, 'POST', '/api/broadcasts', {
          subject: 'Hi',
          html: 'x',
          segmentId: segment.id,
        })
      ).json().id;
      await rig.call(rig.legend, 'DELETE', `/api/segments/${segment.id}`);
      const sent = await rig.call(rig.legend, 'POST', `/api/broadcasts/${id}/send`);
      expect(sent.statusCode).toBe(400);
      expect(sent.json().error).toBe('unknown_segment');
      expect(
        (await rig.call(rig.legend, 'PATCH', `/api/broadcasts/${id}`, { segmentId: randomUUID() })).json()
          .error,
      ).toBe('unknown_segment');
    });
  });
}
