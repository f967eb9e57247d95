import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteKind } from '../helpers/stores.js';
import { type SocialHarness, startSocial } from './harness.js';
import { commentTrigger, connect, createLink, createRule } from './helpers.js';

/** The product flag (FLAGS_OFF=dmAutomations) and an unprovisioned provider app. */
describe('social gates', () => {
  let off: SocialHarness;
  let bare: SocialHarness;
  beforeAll(async () => {
    off = await startSocial(sqliteKind, { flagsOff: ['dmAutomations'] });
    bare = await startSocial(sqliteKind, { provisioned: false });
  });
  afterAll(async () => {
    await off.close();
    await bare.close();
  });

  it('flag off: connect, create and edit answer 403 feature_disabled; reads, pause and delete still work', async () => {
    const { orgId, apiKey } = await off.org('legend');
    expect((await off.as(orgId, { method: 'GET', url: '/api/social/meta' })).json().authUrl).toBeNull();
    const connected = await connect(off, orgId);
    expect(connected.response.statusCode).toBe(403);
    expect(connected.response.json().error).toBe('feature_disabled');
    const link = await createLink(off, apiKey);
    const created = await createRule(off, orgId, {
      accountId: 'x',
      linkId: link.id,
      dmText: 'Hi',
      trigger: commentTrigger(),
    });
    expect(created.json()).toMatchObject({ error: 'feature_disabled' });
    expect(created.statusCode).toBe(403);
    expect((await off.as(orgId, { method: 'GET', url: '/api/social/automations' })).statusCode).toBe(200);
    expect((await off.as(orgId, { method: 'GET', url: '/api/social' })).statusCode).toBe(200);
  });

  it('not provisioned: meta says so and connect answers 503', async () => {
    const { orgId } = await bare.org('legend');
    expect((await bare.as(orgId, { method: 'GET', url: '/api/social/meta' })).json()).toEqual({
      appConfigured: false,
      appMode: 'development',
      authUrl: null,
    });
    const response = await bare.as(orgId, {
      method: 'POST',
      url: '/api/social/connect',
      payload: { code: 'c', state: 's' },
    });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toBe('not_provisioned');
  });
});
