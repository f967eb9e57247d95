import { describe, expect, it } from 'vitest';
import { startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';

/** The routes document themselves in the OpenAPI description of the app the composition root builds. */
describe('social OpenAPI', () => {
  it('documents every route, the rule and its cleaned trigger', async () => {
    const h = await startHosted(sqliteKind);
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/social',
        '/api/social/meta',
        '/api/social/connect',
        '/api/social/accounts/{id}',
        '/api/social/automations',
        '/api/social/automations/{id}',
        '/api/social/automations/{id}/stats',
        '/api/social/automations/{id}/events',
        '/api/public/social/webhook',
      ]),
    );
    const text = JSON.stringify(doc);
    expect(text).toContain('bad_trigger');
    expect(doc.components.schemas).toHaveProperty('DmTrigger');
    expect(doc.components.schemas).toHaveProperty('DmAutomation');
    await h.close();
  });
});
