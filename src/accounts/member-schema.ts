import { z } from 'zod';
import { ROLES } from '../tenancy/permissions.js';

const role = z.enum(ROLES, { error: `role: one of ${ROLES.join(', ')}` });

export const memberSchema = z
  .object({ userId: z.string(), email: z.string(), role: z.enum(ROLES), createdAt: z.string() })
  .meta({ id: 'Member' });

export const memberParams = z.object({ userId: z.string().min(1).max(64) });
export const changeRoleBody = z.object({ role }).strict();

export const emailField = z
  .email('email: enter a valid email address')
  .max(254)
  .transform((value) => value.toLowerCase());

export const createInviteBody = z.object({ email: emailField, role }).strict();

export const inviteSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    expiresAt: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'Invite' });

export const createdInviteSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  expiresAt: z.string(),
  delivery: z
    .enum(['mail', 'server_log'])
    .describe(
      'where the accept link went: mailed to the invited address, or (no SMTP_URL) written in the server log for the operator; never in this answer',
    ),
});

export const inviteTokenBody = z.object({ token: z.string().min(1).max(200) }).strict();
export const acceptInviteBody = z
  .object({
    token: z.string().min(1).max(200),
    password: z
      .string()
      .max(200)
      .optional()
      .describe(
        'a new person sets one (8+); an existing account accepts from its own signed-in session, without it',
      ),
  })
  .strict();

export const inviteDetailsSchema = z.object({
  orgName: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  expiresAt: z.string(),
});
