import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { idParams } from '../http/schemas.js';
import type { V1Request } from './v1-caller.js';

/**
 * One MCP tool as data: which /v1 operation it is, and the input it publishes. The input is the route's
 * own Zod schema (plus `id` where the path has one), published as JSON Schema; the arguments are not
 * validated or changed here but sent to /v1, which validates them with that same schema and answers
 * its own errors. So a tool does exactly one /v1 operation and never more than the key can do there.
 */
export interface ToolSpec {
  /** snake_case, stable: test/mcp/tool-list.test.ts snapshots every name, description and schema. */
  name: string;
  title: string;
  /** Written for a model: what the tool does, when to use it, what it answers. */
  description: string;
  input: z.ZodObject;
  annotations: ToolAnnotations;
  method: V1Request['method'];
  /** Below /v1; `{id}` is filled from the `id` argument. */
  path: string;
  /** Where the other arguments go (`none`: the path's `id` is the only one). */
  send: 'query' | 'body' | 'none';
  /** Query values sent unless the arguments give their own. */
  defaults?: Record<string, string>;
  /** Query values always sent, whatever the arguments say (the tool's whole point, e.g. health=down). */
  fixed?: Record<string, string>;
}

/** A path `id`, described for a model. */
export const idArgument = (what: string) =>
  z.object({ id: idParams.shape.id.describe(`The ${what}'s id, as create and list tools answer it`) });

export type Refusal = { error: string; message: string };

/** The /v1 request a call of `spec` with `args` makes, or why the arguments cannot make one. */
export function toRequest(spec: ToolSpec, args: Record<string, unknown>): V1Request | Refusal {
  const known = Object.keys(spec.input.shape);
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    return {
      error: 'invalid_body',
      message: `Unrecognized argument${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (${spec.name} takes ${known.join(', ') || 'none'})`,
    };
  }
  const { id, ...rest } = args;
  let path = spec.path;
  if (path.includes('{id}')) {
    // An empty or missing id would make another path (`/links/` is the list): refuse it as /v1 would a bad body.
    if (typeof id !== 'string' || id.length === 0 || id.length > 64)
      return { error: 'invalid_body', message: '`id` is required: a string of 1 to 64 characters' };
    path = path.replace('{id}', encodeURIComponent(id));
  }
  if (spec.send === 'none') return { method: spec.method, path };
  if (spec.send === 'body') return { method: spec.method, path, body: rest };
  const query: Record<string, string> = { ...spec.defaults };
  for (const [key, value] of Object.entries(rest))
    if (value !== undefined && value !== null)
      query[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return { method: spec.method, path, query: { ...query, ...spec.fixed } };
}

/** The JSON Schema a tool publishes: what its input accepts (before any transform), as MCP lists it. */
export function inputJsonSchema(spec: ToolSpec): { type: 'object'; [key: string]: unknown } {
  const { $schema: _, ...schema } = z.toJSONSchema(spec.input, { io: 'input', unrepresentable: 'any' });
  return { ...schema, type: 'object' };
}
