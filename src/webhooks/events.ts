/**
 * The seven webhook events (hosted-service.md section 6). Their own module, free of Zod, so the dashboard
 * can import the list without bundling the validation library.
 */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.archived',
  'app.opened',
  'app.browser',
  'app.broken',
  'contact.captured',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
