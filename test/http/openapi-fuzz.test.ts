import { randomBytes, randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_HEADERS } from '../../src/http/edge-text.js';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { postgresKind, sqliteKind } from '../helpers/stores.js';

/**
 * Every operation of the hosted app's OpenAPI, sent seeded malformed variants: control characters in
 * every string of a valid-looking body, `%00` and junk in every path id and query parameter, wrong
 * types, missing required fields, huge strings, invalid JSON and wrong content types; and (issue #30)
 * bodies nested 5,000 and 100,000 levels deep, NUL hidden in base64url (as a cursor carries it), NUL in
 * the headers the app reads, and bodies over the size limit or 200,000 items wide. Nothing may answer
 * 5xx, on SQLite or on PostgreSQL.
 */

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; schema?: Schema }[];
  body: Schema | undefined;
}
interface Variant {
  label: string;
  pathValues?: Record<string, string>;
  query?: string;
  payload?: string;
  contentType?: string;
  /** A header sent with a NUL in it (after its usual value, when it has one). */
  nulHeader?: string;
}

/** mulberry32: a small seeded PRNG, so a failure is replayed exactly. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONTROLS = ['\u0000', '\u0001', '\u0007', '\u0008', '\u000b', '\u001b', '\u001f', '\u007f', '\r\n'];
const JUNK_IDS = [
  '%00',
  'abc%00def',
  '%01',
  '%7F',
  'not-an-id',
  'x'.repeat(300),
  '..%2F..%2Fetc',
  '-1',
  '%E2%80%AE',
];
const JUNK_QUERY = ['%00', 'a%00b', '%1B%5B31m', 'not-an-id', '-1', '1e309', 'x'.repeat(5000), '%FF%FE'];

/** JSON text of `levels` arrays one inside the other. */
const deepArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** JSON text of `levels` objects `{"a": {"a": ...}}`. */
const deepObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** Built once and sent to every operation with a body: over the 1 MB limit (the imports' 10 MB take it). */
const HUGE_BODY = JSON.stringify({ x: 'x'.repeat(2 * 1024 * 1024) });
/** Wide rather than deep: 200,000 items, under the limit. */
const WIDE_BODY = `[${'0,'.repeat(200_000)}0]`;
/** Text that passes the edge check as sent and holds NUL once decoded, as the audit cursor did. */
const ENCODED_NULS = [
  Buffer.from(JSON.stringify(['\u0000', '\u0000'])).toString('base64url'),
  Buffer.from(JSON.stringify([new Date().toISOString(), `${randomUUID()}\u0000`])).toString('base64url'),
  Buffer.from('a\u0000b').toString('base64url'),
];

/** Plausible values by field name, so more bodies get past validation to the code behind it. */
const BY_KEY: Record<string, string> = {
  slug: 'fuzzslug',
  handle: 'fuzzhandle',
  email: 'fuzz@example.com',
  name: 'Fuzz',
  title: 'Fuzz',
  label: 'Fuzz',
  subject: 'Fuzz',
  password: 'correct horse battery',
  html: '<p>hi</p>',
};

function resolve(schema: unknown, doc: Schema): Schema {
  const s = (schema ?? {}) as Schema;
  const ref = s.$ref as string | undefined;
  if (!ref) return s;
  const name = ref.split('/').pop() as string;
  return resolve(((doc.components as Schema).schemas as Schema)[name], doc);
}

/** A valid-looking value for a JSON schema: enough to get past the first checks to the deeper ones. */
function sample(schema: unknown, doc: Schema, depth = 0, key = ''): unknown {
  const s = resolve(schema, doc);
  if (depth > 6) return null;
  const choice = (s.anyOf ?? s.oneOf ?? s.allOf) as unknown[] | undefined;
  if (choice?.length)
    return sample(choice.find((c) => resolve(c, doc).type !== 'null') ?? choice[0], doc, depth + 1);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries((s.properties ?? {}) as Schema))
        out[key] = sample(inner, doc, depth + 1, key);
      return out;
    }
    case 'array':
      return [sample(s.items, doc, depth + 1)];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'uuid' || key.endsWith('Id')) return randomUUID();
      if (key in BY_KEY) return BY_KEY[key];
      if (s.format === 'email') return 'fuzz@example.com';
      if (typeof s.pattern === 'string') return 'abc';
      return 'https://example.com/a';
    default:
      return 'https://example.com/a';
  }
}

/** Every string leaf of `value`, as paths. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [[...path, k], ...leaves(v, [...path, k])]);
  return [];
}

function replaced(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  copy[head] = replaced(copy[head], rest, next);
  return copy;
}

function variantsOf(op: Operation, doc: Schema, random: () => number): Variant[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  // The baseline: every path id well formed but unknown, no query, no body.
  const out: Variant[] = [{ label: 'well-formed unknown ids' }];
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  for (const p of pathParams)
    for (const junk of [
      JUNK_IDS[0] as string,
      pick(JUNK_IDS),
      pick(JUNK_IDS),
      pick(JUNK_IDS),
      pick(JUNK_IDS),
    ])
      out.push({ label: `path ${p.name}=${junk.slice(0, 20)}`, pathValues: { [p.name]: junk } });
  for (const q of queryParams)
    for (const junk of [
      JUNK_QUERY[0] as string,
      pick(JUNK_QUERY),
      pick(JUNK_QUERY),
      pick(JUNK_QUERY),
      pick(JUNK_QUERY),
    ])
      out.push({ label: `query ${q.name}=${junk.slice(0, 20)}`, query: `${q.name}=${junk}` });
  if (queryParams.length > 0)
    out.push({ label: 'query repeated', query: queryParams.map((q) => `${q.name}=1&${q.name}=2`).join('&') });
  for (const q of queryParams)
    out.push({ label: `query ${q.name}=encoded NUL`, query: `${q.name}=${pick(ENCODED_NULS)}` });
  for (const p of pathParams)
    out.push({ label: `path ${p.name}=encoded NUL`, pathValues: { [p.name]: pick(ENCODED_NULS) } });
  for (const name of [pick(READ_HEADERS), pick(READ_HEADERS)])
    out.push({ label: `NUL in header ${name}`, nulHeader: name });
  if (!op.body) return out;
  const valid = sample(op.body, doc);
  const json = (value: unknown, label: string) => out.push({ label, payload: JSON.stringify(value) });
  json(valid, 'valid-looking body');
  const paths = leaves(valid);
  // Every string leaf gets a control character; a seeded few get wrong types and huge strings.
  for (const path of paths) {
    const at = path.join('.');
    json(replaced(valid, path, `a${pick(CONTROLS)}b`), `control in ${at}`);
    json(replaced(valid, path, '\u0000'), `NUL in ${at}`);
    json(
      replaced(valid, path, `${pick(CONTROLS)}${'x'.repeat(pick([0, 10, 300]))}`),
      `leading control in ${at}`,
    );
    json(replaced(valid, path, pick([42, true, null, [], {}, -1.5])), `wrong type at ${at}`);
  }
  for (const path of paths.filter(() => random() < 0.5))
    json(replaced(valid, path, 'x'.repeat(pick([300, 5000, 70_000]))), `huge string at ${path.join('.')}`);
  const schema = resolve(op.body, doc);
  for (const key of (schema.required as string[] | undefined) ?? [])
    if (valid && typeof valid === 'object') {
      const { [key]: _dropped, ...rest } = valid as Record<string, unknown>;
      json(rest, `missing ${key}`);
    }
  json({ ...(valid as object), '\u0000key': 'x' }, 'NUL in a key');
  for (const payload of [[valid], null, 'a\u0000b', 12, {}])
    json(payload, `body ${JSON.stringify(payload)?.slice(0, 12)}`);
  // Nesting: arrays and objects 5,000 deep; a huge body. Every operation, each costs little.
  out.push({ label: 'arrays 5,000 deep', payload: deepArrays(5_000) });
  out.push({ label: 'objects 5,000 deep', payload: deepObjects(5_000) });
  out.push({ label: 'huge body (2 MB)', payload: HUGE_BODY });
  // 100,000 deep inside a field of a valid-looking body, and a wide body: a seeded fifth of the operations
  // each, as each costs tens of milliseconds to parse (the whole fuzz stays within seconds).
  if (random() < 0.2) {
    const field = paths[0] ?? ['extra'];
    out.push({
      label: `100,000 deep at ${field.join('.')}`,
      payload: JSON.stringify(replaced(valid, field, '<deep>')).replace('"<deep>"', deepArrays(100_000)),
    });
  }
  if (random() < 0.2) out.push({ label: 'wide body (200,000 items)', payload: WIDE_BODY });
  out.push({ label: 'invalid JSON', payload: '{"a": ' });
  out.push({ label: 'NUL escape in JSON', payload: '{"x":"\\u0000"}' });
  out.push({ label: 'text/plain', payload: 'hello\u0000', contentType: 'text/plain' });
  out.push({ label: 'form', payload: 'a=%00&b=1', contentType: 'application/x-www-form-urlencoded' });
  out.push({ label: 'xml', payload: '<a/>', contentType: 'application/xml' });
  return out;
}

function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Schema)) {
    for (const [method, raw] of Object.entries(item as Schema)) {
      const op = raw as Schema;
      const content = ((op.requestBody as Schema | undefined)?.content ?? {}) as Schema;
      const body = (content['application/json'] as Schema | undefined)?.schema as Schema | undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []) as Operation['params'],
        body,
      });
    }
  }
  // Log-out last: it ends the session every other /api operation runs with.
  return ops.sort((a, b) => Number(a.path.includes('logout')) - Number(b.path.includes('logout')));
}

for (const kind of [sqliteKind, postgresKind]) {
  describe.skipIf(kind.skipReason !== null)(`OpenAPI fuzz on ${kind.name}`, () => {
    let h: HostedHarness;
    let orgId: string;
    let cookie: string;
    let apiKey: string;
    let keyUses = 0;
    let fake: FakeSocialProvider;
    let smtp: SmtpSink;

    beforeAll(async () => {
      // Every optional integration configured (the provider as a faithful fake on loopback), so a 503
      // "not configured" never stands in for the validation the fuzz is after.
      fake = await new FakeSocialProvider().start();
      smtp = await startSmtp();
      h = await startHosted(kind, {
        SOCIAL_APP_ID: fake.appId,
        SOCIAL_APP_SECRET: fake.appSecret,
        TOKEN_VAULT_KEY: randomBytes(32).toString('base64'),
        SOCIAL_VERIFY_TOKEN: 'vt',
        SOCIAL_AUTHORIZE_BASE: fake.origin,
        SOCIAL_OAUTH_BASE: fake.origin,
        SOCIAL_API_BASE: fake.origin,
        CRON_SECRET: 'cron',
        SMTP_URL: smtp.url,
      });
      ({ orgId } = await h.accounts.createOrganization({
        name: 'Fuzz',
        tier: 'legend',
        email: 'fuzz@example.com',
        password: 'correct horse battery',
      }));
      apiKey = (await h.accounts.mintApiKey(orgId)).apiKey;
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'fuzz@example.com', password: 'correct horse battery' },
      });
      expect(login.statusCode).toBe(200);
      cookie = String(login.headers['set-cookie']).split(';')[0] as string;
    });
    afterAll(async () => {
      await h?.close();
      await fake?.stop();
      await smtp?.close();
    });

    it('answers no operation with a 5xx, whatever the input', { timeout: 120_000 }, async () => {
      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Schema;
      const ops = operationsOf(doc);
      expect(ops.length).toBeGreaterThan(100);
      const random = prng(0x1ed9e);
      const histogram = new Map<number, number>();
      const failures: string[] = [];
      let sent = 0;
      let tooDeep = 0;
      for (const op of ops) {
        for (const variant of variantsOf(op, doc, random)) {
          // The per-key limit (120 a minute) would answer 429 before validation: a fresh key every 100.
          if (op.path.startsWith('/v1') && ++keyUses % 100 === 0)
            apiKey = (await h.accounts.mintApiKey(orgId)).apiKey;
          const url =
            op.path.replace(
              /\{(\w+)\}/g,
              (_m, name: string) => variant.pathValues?.[name] ?? (name === 'id' ? randomUUID() : 'fuzz'),
            ) + (variant.query ? `?${variant.query}` : '');
          const headers: Record<string, string> = {};
          if (op.path.startsWith('/v1')) headers.authorization = `Bearer ${apiKey}`;
          if (op.path.startsWith('/api')) Object.assign(headers, { cookie, origin: BASE_URL });
          if (variant.payload !== undefined)
            headers['content-type'] = variant.contentType ?? 'application/json';
          if (variant.nulHeader) headers[variant.nulHeader] = `${headers[variant.nulHeader] ?? 'a'}\u0000b`;
          const request: InjectOptions = {
            method: op.method as InjectOptions['method'],
            url,
            headers,
            ...(variant.payload !== undefined ? { payload: variant.payload } : {}),
          };
          // A connection torn down without an answer is as much a failure as a 5xx.
          const response = await h.app.inject(request).catch((error: Error) => ({
            statusCode: 599,
            body: `no answer: ${error.message}`,
          }));
          sent++;
          histogram.set(response.statusCode, (histogram.get(response.statusCode) ?? 0) + 1);
          if (
            /deep/.test(variant.label) &&
            response.statusCode === 400 &&
            response.body.includes('"too_deep"')
          )
            tooDeep++;
          if (response.statusCode >= 500)
            failures.push(
              `${op.method} ${op.path} [${variant.label}] -> ${response.statusCode} ${response.body.slice(0, 160)}`,
            );
        }
      }
      const counts = [...histogram.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
      console.log(
        `OpenAPI fuzz on ${kind.name}: ${ops.length} operations, ${sent} requests; ${counts.join(', ')}; ` +
          `${tooDeep} too_deep`,
      );
      expect(failures).toEqual([]);
      // The nesting cases reached the depth check, not only a refusal before it (auth, CSRF, 404).
      expect(tooDeep).toBeGreaterThan(ops.filter((op) => op.body && op.path.startsWith('/v1')).length);
    });
  });
}
