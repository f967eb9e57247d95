import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * The OpenAPI document served at /openapi.json: generated from the routes' Zod schemas, linted clean
 * under Redocly's recommended rules (test/http/openapi-lint.test.ts) and the source of the SDK's types
 * (packages/sdk). Each route declares its own `operationId`, `summary` and error responses; this file
 * holds what belongs to the document as a whole.
 */

/** One line per tag, in the order a reader meets them; a tag a route uses but this list lacks still works. */
const TAGS = [
  { name: 'account', description: 'The organization an API key belongs to.' },
  { name: 'links', description: 'Short links: create, list, edit, archive; QR codes, previews, receipts.' },
  { name: 'folders', description: 'Folders that group links.' },
  { name: 'domains', description: 'Custom hostnames, verified by a DNS TXT record.' },
  { name: 'pixels', description: 'Tracking pixels fired on escape and fallback pages.' },
  { name: 'webhooks', description: 'Signed outbound event deliveries (HMAC-SHA256, `x-service-signature`).' },
  { name: 'analytics', description: 'Clicks, app-open outcomes, rollups and exports.' },
  { name: 'audience', description: 'Contacts captured with consent on fallback pages.' },
  { name: 'bio', description: 'The link-in-bio page.' },
  { name: 'media-kit', description: 'The public media kit and its SVG card.' },
  { name: 'broadcasts', description: 'Email broadcasts to audience segments, and unsubscribing.' },
  { name: 'social', description: 'Instagram comment-to-DM automations and the provider webhook.' },
  { name: 'receipts', description: 'Keys that verify signed permanence receipts.' },
  { name: 'dashboard', description: 'Sign-up, sessions and API keys of the web dashboard (cookie auth).' },
  { name: 'redirect', description: 'The short links themselves: redirects, escape and fallback pages.' },
];

type Document = ReturnType<typeof jsonSchemaTransformObject>;
type Json = unknown;

const SCHEMA_REF = '#/components/schemas/';

/** Every schema name `$ref`erenced anywhere under `node`. */
function refsIn(node: Json, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) refsIn(item, found);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
      found.add(value.slice(SCHEMA_REF.length));
    } else {
      refsIn(value, found);
    }
  }
}

/**
 * Drops the component schemas nothing reaches from `paths` (directly or through other schemas). The Zod
 * registry gives every named schema an input and an output twin, and a schema used only by a hidden
 * route still lands in the registry: neither belongs in the document a client is generated from.
 */
export function withoutUnusedSchemas<T extends { paths?: unknown; components?: { schemas?: object } }>(
  document: T,
): T {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>;
  const reached = new Set<string>();
  refsIn(document.paths, reached);
  const pending = [...reached];
  while (pending.length > 0) {
    const inner = new Set<string>();
    refsIn(schemas[pending.pop() as string], inner);
    for (const ref of inner) {
      if (!reached.has(ref)) {
        reached.add(ref);
        pending.push(ref);
      }
    }
  }
  // Sorted by name: the registry's order follows module evaluation, which differs between Node versions,
  // and the SDK's generated types must not change with the runtime that generated them.
  const kept = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => reached.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return { ...document, components: { ...document.components, schemas: kept } };
}

/** @fastify/swagger's options for the hosted service; `baseUrl` is the one server the document names. */
export function hostedOpenApiOptions(baseUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'linkhop API',
        version: '1.0.0',
        description:
          'Smart links that escape in-app browsers. Every /v1 call needs `Authorization: Bearer svc_...`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: baseUrl }],
      tags: TAGS,
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'svc_ API key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => withoutUnusedSchemas(jsonSchemaTransformObject(input)) as Document,
  };
}
