/**
 * The webhook events: hosted-service.md section 6's seven, and link.expired (issue #20: once, when a
 * link's end date passes or its click limit is reached), link.destination_down and link.destination_up (issue
 * #33: the destination's health turned). Their own module, free of Zod, so the dashboard
 * can import the list without bundling the validation library.
 */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.archived',
  'link.expired',
  'link.destination_down',
  'link.destination_up',
  'app.opened',
  'app.browser',
  'app.broken',
  'contact.captured',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
