import { unwrap } from '../errors.js';
import type { CreatedWebhook, Input, Webhook } from '../types.js';
import { type Api, byId } from './api.js';

/** The `webhooks` operations. Verify each delivery with `verifyWebhookSignature`. */
export class Webhooks {
  constructor(private readonly api: Api) {}

  /** The answer carries the signing secret, once: store it to verify deliveries. */
  async create(input: Input<'createWebhook'>): Promise<CreatedWebhook> {
    return unwrap(await this.api.POST('/v1/webhooks', { body: input }));
  }

  async list(): Promise<Webhook[]> {
    return unwrap(await this.api.GET('/v1/webhooks')).webhooks;
  }

  async update(id: string, patch: Input<'updateWebhook'>): Promise<Webhook> {
    return unwrap(await this.api.PATCH('/v1/webhooks/{id}', { ...byId(id), body: patch }));
  }

  async delete(id: string) {
    return unwrap(await this.api.DELETE('/v1/webhooks/{id}', byId(id)));
  }
}
