import { z } from 'zod';
import { urlField } from '../core/urls.js';

/** Webhook subscriptions (hosted-service.md sections 2 and 6): bodies, responses and the seven events. */

import { WEBHOOK_EVENTS, type WebhookEvent } from './events.js';

export { WEBHOOK_EVENTS, type WebhookEvent };

export const MAX_WEBHOOK_URL = 2048;
export const MAX_WEBHOOKS_PER_ORG = 5;

// Only the shape is checked here; whether the target is https and public is the service's call, because
// it depends on WEBHOOK_ALLOW_PRIVATE_TARGETS and on DNS.
const urlSchema = urlField({
  message: 'The webhook URL must be an absolute https:// URL',
  max: MAX_WEBHOOK_URL,
});

const eventsSchema = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1, 'Subscribe to at least one event')
  .transform((events) => [...new Set(events)]);

export const createWebhookBody = z.object({ url: urlSchema, events: eventsSchema }).strict();
export type CreateWebhookInput = z.infer<typeof createWebhookBody>;

export const patchWebhookBody = z
  .object({ url: urlSchema.optional(), events: eventsSchema.optional(), active: z.boolean().optional() })
  .strict();
export type PatchWebhookInput = z.infer<typeof patchWebhookBody>;

export const webhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean(),
    failCount: z.number().int(),
    lastDeliveredAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z.string().describe('signing secret; shown once, never readable again'),
    note: z.string(),
  })
  .meta({ id: 'CreatedWebhook' });
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) });
export const deletedSchema = z.object({ deleted: z.literal(true) });
