import { describe, expect, it } from 'vitest';
import { startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';

/** The routes of the audience, segments, broadcasts, the capture form and unsubscribing. */
const OWN_PATHS = /^\/(v1\/audience|api\/audience|api\/segments|api\/broadcasts|api\/public\/capture|u\/)/;

describe('the OpenAPI description of the audience and broadcast routes', () => {
  it('documents every route with its operation id, registered as the hosted app registers them', async () => {
    const h = await startHosted(sqliteKind);
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const own = Object.entries(doc.paths).filter(([path]) => OWN_PATHS.test(path));
    const ops = own.flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(ops.sort()).toEqual(
      [
        'GET /v1/audience listAudience',
        'GET /v1/audience/export.csv exportAudience',
        'GET /v1/audience/{id} getContact',
        'DELETE /v1/audience/{id} deleteContact',
        'GET /api/audience dashboardListAudience',
        'GET /api/audience/export.csv dashboardExportAudience',
        'GET /api/audience/{id} dashboardGetContact',
        'DELETE /api/audience/{id} dashboardDeleteContact',
        'POST /api/segments createSegment',
        'GET /api/segments listSegments',
        'DELETE /api/segments/{id} deleteSegment',
        'POST /api/broadcasts createBroadcast',
        'GET /api/broadcasts listBroadcasts',
        'GET /api/broadcasts/{id} getBroadcast',
        'PATCH /api/broadcasts/{id} updateBroadcast',
        'POST /api/broadcasts/{id}/send sendBroadcast',
        'POST /api/public/capture captureEmail',
        'GET /u/{token} unsubscribePage',
        'POST /u/{token} unsubscribe',
      ].sort(),
    );
    await h.close();
  });
});
