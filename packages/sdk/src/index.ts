export { Linkhop, type LinkhopOptions } from './client.js';
export { type ErrorBody, LinkhopError } from './errors.js';
export type { components, operations, paths } from './openapi.js';
export { Pages } from './pages.js';
export type { RetryOptions } from './retry.js';
export type * from './types.js';
export {
  parseWebhook,
  type SignedDelivery,
  verifyWebhookSignature,
  type WebhookEvent,
} from './webhook-signature.js';
