import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { InviteService } from './invites.js';
import {
  changeRoleBody,
  createdInviteSchema,
  createInviteBody,
  inviteSchema,
  memberParams,
  memberSchema,
} from './member-schema.js';
import type { MemberService } from './members.js';

const deleted = z.object({ deleted: z.literal(true) });

/** /v1/members and /v1/invites, and their dashboard twins under /api. */
export async function memberRoutes(
  app: FastifyInstance,
  deps: { members: MemberService; invites: InviteService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { members, invites } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['members'];

  r.get(
    '/members',
    {
      config: { permission: 'members:read' },
      schema: {
        operationId: op('listMembers'),
        summary: "List the organization's members",
        tags,
        response: { 200: z.object({ members: z.array(memberSchema) }), ...errorResponses(403) },
      },
    },
    async (request) => ({ members: await members.list(orgOf(request)) }),
  );

  r.patch(
    '/members/:userId',
    {
      config: { permission: 'members:write' },
      schema: {
        operationId: op('updateMember'),
        summary: "Change a member's role",
        tags,
        description: 'Only owners make or unmake owners; the last owner cannot be demoted (409 last_owner).',
        params: memberParams,
        body: changeRoleBody,
        response: { 200: memberSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => members.changeRole(orgOf(request), request.params.userId, request.body.role),
  );

  r.delete(
    '/members/:userId',
    {
      config: { permission: 'members:write' },
      schema: {
        operationId: op('removeMember'),
        summary: 'Remove a member',
        tags,
        description: 'The last owner cannot be removed (409 last_owner).',
        params: memberParams,
        response: { 200: deleted, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      await members.remove(orgOf(request), request.params.userId);
      return { deleted: true as const };
    },
  );

  r.post(
    '/invites',
    {
      config: { permission: 'members:write' },
      schema: {
        operationId: op('createInvite'),
        summary: 'Invite someone by email',
        tags,
        description:
          'The accept link goes to the invited address only: mailed when SMTP_URL is set, else written in the ' +
          'server log for the operator. It works once, within 7 days. At most 100 pending and 20 sent an ' +
          'hour per organization (429 too_many_invites).',
        body: createInviteBody,
        response: { 201: createdInviteSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await invites.create(orgOf(request), request.body)),
  );

  r.get(
    '/invites',
    {
      config: { permission: 'members:write' },
      schema: {
        operationId: op('listInvites'),
        summary: 'List pending invites',
        tags,
        response: { 200: z.object({ invites: z.array(inviteSchema) }), ...errorResponses(403) },
      },
    },
    async (request) => ({
      invites: (await invites.list(orgOf(request))).map(({ id, email, role, expiresAt, createdAt }) => ({
        id,
        email,
        role,
        expiresAt,
        createdAt,
      })),
    }),
  );

  r.delete(
    '/invites/:id',
    {
      config: { permission: 'members:write' },
      schema: {
        operationId: op('revokeInvite'),
        summary: 'Revoke an invite',
        tags,
        params: idParams,
        response: { 200: deleted, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      await invites.revoke(orgOf(request), request.params.id);
      return { deleted: true as const };
    },
  );
}
