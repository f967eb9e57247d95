import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebhook, verifyWebhookSignature } from '../../packages/sdk/src/index.js';
import { type SdkServer, startSdkServer } from './setup.js';

/** A receiver on loopback: what a customer's endpoint gets, byte for byte. */
const deliveries: { body: Buffer; headers: Record<string, string | string[] | undefined> }[] = [];
let receiver: Server;
let receiverUrl: string;
let server: SdkServer;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks), headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  server = await startSdkServer({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
});
afterAll(async () => {
  await server.serve.stop();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('webhooks through the SDK, verified with its signature helper', () => {
  it('a real link.created delivery verifies with the secret shown at creation, and nothing else does', async () => {
    const linkhop = server.client(server.org().apiKey);
    const webhook = await linkhop.webhooks.create({ url: receiverUrl, events: ['link.created'] });
    expect(webhook.secret.length).toBeGreaterThan(20);
    expect((await linkhop.webhooks.list()).map((w) => w.id)).toEqual([webhook.id]);
    const link = await linkhop.links.create({ url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC' });

    await expect.poll(() => deliveries.length).toBe(1);
    const [delivery] = deliveries;
    if (!delivery) throw new Error('no delivery');
    const signature = delivery.headers['x-service-signature'] as string;
    const { secret } = webhook;
    expect(await verifyWebhookSignature({ body: delivery.body, signature, secret })).toBe(true);
    expect(await verifyWebhookSignature({ body: delivery.body.toString('utf8'), signature, secret })).toBe(
      true,
    );
    const event = await parseWebhook<{ id: string }>({ body: delivery.body, signature, secret });
    expect(event.event).toBe('link.created');
    expect(event.data.id).toBe(link.id);

    // A changed byte, another secret, a missing, malformed or upper-cased-but-wrong header: all refused.
    const tampered = delivery.body.toString('utf8').replace('link.created', 'link.archived');
    expect(await verifyWebhookSignature({ body: tampered, signature, secret })).toBe(false);
    expect(await verifyWebhookSignature({ body: delivery.body, signature, secret: `${secret}x` })).toBe(
      false,
    );
    expect(await verifyWebhookSignature({ body: delivery.body, signature: undefined, secret })).toBe(false);
    expect(await verifyWebhookSignature({ body: delivery.body, signature: 'sha256=abc', secret })).toBe(
      false,
    );
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(await verifyWebhookSignature({ body: delivery.body, signature: flipped, secret })).toBe(false);
    await expect(parseWebhook({ body: tampered, signature, secret })).rejects.toThrow(/signature/);

    const paused = await linkhop.webhooks.update(webhook.id, { active: false });
    expect(paused.active).toBe(false);
    await linkhop.webhooks.delete(webhook.id);
    expect(await linkhop.webhooks.list()).toEqual([]);
  });
});
