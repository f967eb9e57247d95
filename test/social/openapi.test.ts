import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import type { SocialAccountService } from '../../src/social/accounts.js';
import type { AutomationService } from '../../src/social/automations.js';
import type { SocialIntake } from '../../src/social/intake.js';
import { socialRoutes } from '../../src/social/routes.js';
import { socialInternalRoutes, socialPublicRoutes } from '../../src/social/webhook-routes.js';

/** The routes document themselves the way the hosted app builds its OpenAPI description. */
describe('social OpenAPI', () => {
  it('documents every route, the rule and its cleaned trigger', async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(swagger, {
      openapi: { openapi: '3.1.0', info: { title: 't', version: '1.0.0' } },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    const none = {} as never;
    await app.register(
      async (api) => {
        await api.register(socialRoutes, {
          accounts: none as SocialAccountService,
          automations: none as AutomationService,
        });
      },
      { prefix: '/api' },
    );
    await app.register(socialPublicRoutes, {
      intake: none as SocialIntake,
      appSecret: 's',
      verifyToken: 'v',
    });
    await app.register(socialInternalRoutes, { cronSecret: 'c', sweep: async () => none });
    await app.ready();
    const doc = app.swagger() as {
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
    await app.close();
  });
});
