import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  formatBytes,
  plainIssue,
  plainValidationMessage,
  type ValidationIssue,
} from '../../src/http/validation-messages.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';

/** Validation errors speak plainly, naming the field (issue #20); `issues` stay Zod's. */
const issuesOf = (schema: z.ZodType, value: unknown) =>
  (schema.safeParse(value).error?.issues ?? []) as unknown as ValidationIssue[];
const first = (schema: z.ZodType, value: unknown) =>
  plainIssue(issuesOf(schema, value)[0] as ValidationIssue);

describe('plain messages for every kind of Zod issue', () => {
  it('rewrites Zod’s own wording into a sentence that names the field', () => {
    const body = z
      .object({
        url: z.string(),
        count: z.number().int().min(1).max(9),
        name: z.string().min(2).max(4),
        tags: z.array(z.string()).max(1),
        when: z.iso.datetime(),
        email: z.email(),
        id: z.uuid(),
        kind: z.enum(['a', 'b']),
        yes: z.literal(true),
        flag: z.boolean(),
        nested: z.object({ deep: z.string() }).strict(),
      })
      .partial()
      .required({ url: true })
      .strict();
    const cases: [unknown, string][] = [
      [{}, 'url is required'],
      [{ url: 5 }, 'url must be text'],
      [{ url: 'x', count: 0 }, 'count must be at least 1'],
      [{ url: 'x', count: 10 }, 'count must be at most 9'],
      [{ url: 'x', count: 1.5 }, 'count must be a whole number'],
      [{ url: 'x', name: 'a' }, 'name must be at least 2 characters'],
      [{ url: 'x', name: 'abcde' }, 'name must be at most 4 characters'],
      [{ url: 'x', tags: ['a', 'b'] }, 'tags must be at most 1 item'],
      [{ url: 'x', tags: [3] }, 'tags[0] must be text'],
      [{ url: 'x', when: 'soon' }, 'when must be an ISO 8601 date-time, e.g. 2026-06-30T23:59:59Z'],
      [{ url: 'x', email: 'nope' }, 'email must be an email address'],
      [{ url: 'x', id: 'nope' }, 'id must be an id (a UUID)'],
      [{ url: 'x', kind: 'c' }, 'kind must be one of "a", "b"'],
      [{ url: 'x', yes: false }, 'yes must be true'],
      [{ url: 'x', flag: 'yes' }, 'flag must be true or false'],
      [{ url: 'x', nested: {} }, 'nested.deep is required'],
      [{ url: 'x', nested: { deep: 'd', odd: 1 } }, 'Unknown field in nested: odd'],
      [{ url: 'x', foo: 1, bar: 2 }, 'Unknown fields: foo, bar'],
      ['text', 'The request must be an object'],
    ];
    for (const [value, message] of cases) expect(first(body, value), JSON.stringify(value)).toBe(message);
  });

  it('keeps our own messages, adding the field when they do not name it', () => {
    const schema = z.object({
      url: z.string().refine(() => false, '`url` must be a valid http(s) URL'),
      ab: z.array(z.string()).min(2, 'An A/B test needs 2 to 4 variants'),
    });
    expect(plainValidationMessage(issuesOf(schema, { url: 'x', ab: [] }))).toBe(
      '`url` must be a valid http(s) URL; ab: An A/B test needs 2 to 4 variants',
    );
  });

  it('spells out three issues and counts the rest', () => {
    const schema = z.object({ a: z.string(), b: z.string(), c: z.string(), d: z.string(), e: z.string() });
    expect(plainValidationMessage(issuesOf(schema, {}))).toBe(
      'a is required; b is required; c is required; and 2 more problems',
    );
  });

  it('says byte limits as people read them', () => {
    expect([formatBytes(1024 * 1024), formatBytes(64 * 1024), formatBytes(300), formatBytes(1)]).toEqual([
      '1 MB',
      '64 KB',
      '300 bytes',
      '1 byte',
    ]);
  });
});

describe('through HTTP', () => {
  let h: HostedHarness;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
    ({ apiKey } = await h.org('legend'));
  });
  afterAll(async () => h?.close());

  it('a body without url: “url is required”, with Zod’s issue kept as it was', async () => {
    const response = await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: {} });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'invalid_body',
      message: 'url is required',
      issues: [
        {
          code: 'invalid_type',
          path: ['url'],
          message: 'Invalid input: expected nonoptional, received undefined',
          expected: 'nonoptional',
        },
      ],
    });
  });

  it('query parameters and bulk items speak the same way', async () => {
    const query = await h.v1(apiKey, { method: 'GET', url: '/v1/links?limit=0&colour=red' });
    expect(query.json()).toMatchObject({
      error: 'invalid_query',
      message: 'limit must be at least 1; Unknown field: colour',
    });
    const bulk = await h.v1(apiKey, {
      method: 'POST',
      url: '/v1/links/bulk',
      payload: { links: [{ slug: 'no-url' }] },
    });
    expect(bulk.json().results[0]).toMatchObject({ error: 'invalid_body', message: 'url is required' });
  });

  it('a 413 says the limit', async () => {
    const response = await h.v1(apiKey, {
      method: 'POST',
      url: '/v1/links',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ url: `https://example.com/${'a'.repeat(1024 * 1024)}` }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: 'payload_too_large',
      message: 'The request body is larger than the 1 MB limit',
    });
  });
});
