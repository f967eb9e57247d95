import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';

/**
 * The OpenAPI document the hosted service serves at /openapi.json lints clean under Redocly's recommended
 * rules, every warning included. A route added without `summary` or `operationId` (the SDK's method names
 * come from them) fails the first test by name: add both where the route declares its schema.
 */

interface Operation {
  operationId?: string;
  summary?: string;
  responses?: Record<string, unknown>;
}
type Paths = Record<string, Record<string, Operation>>;

/**
 * Operations that truthfully have no 2xx or no 4xx answer, each with the reason. Redocly's own way to say
 * this is a lint-ignore entry; keeping the list here makes every exception visible in review.
 */
const EXEMPT: Record<'operation-2xx-response' | 'operation-4xx-response', Record<string, string>> = {
  'operation-2xx-response': {
    unlockLink: 'success is a 303 back to the link, with its cookie',
    startSso: 'success is a 303 to the identity provider',
    finishSso: 'success is a 303 to the dashboard, with the session cookie',
  },
  'operation-4xx-response': {
    captureEmail: 'answers 204 for every outcome so a form post reveals nothing (hosted-service.md)',
    reportTapOutcome: 'a beacon: answers 204 for every body, valid or not',
    getReceiptKeys: 'a static public document',
  },
};
const exempt = (rule: keyof typeof EXEMPT, op: Operation | undefined) =>
  op?.operationId !== undefined && op.operationId in EXEMPT[rule];

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function operations(paths: Paths): { label: string; op: Operation }[] {
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ label: `${method.toUpperCase()} ${path}`, op })),
  );
}

/** `#/paths/~1v1~1links/get/responses` -> the operation it points into, if any. */
function operationAt(paths: Paths, pointer: string): Operation | undefined {
  const [, section, path, method] = pointer.split('/');
  if (section !== 'paths' || !path || !method) return undefined;
  return paths[path.replaceAll('~1', '/').replaceAll('~0', '~')]?.[method];
}

function describeProblem(problem: NormalizedProblem): string {
  return `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`;
}

let hosted: HostedHarness;
let document: { info: Record<string, unknown>; paths: Paths };
let source: string;

beforeAll(async () => {
  hosted = await startHosted(sqliteKind);
  const response = await hosted.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  source = response.body;
  document = JSON.parse(source);
});
afterAll(() => hosted.close());

describe('the OpenAPI document', () => {
  it('gives every operation a summary and a unique operationId (the SDK names its methods after them)', () => {
    const all = operations(document.paths);
    expect(all.length).toBeGreaterThan(100);
    const lacking = all.filter(({ op }) => !op.summary?.trim() || !op.operationId).map(({ label }) => label);
    expect(lacking, 'add `summary` and `operationId` to these routes’ schema').toEqual([]);
    const ids = all.map(({ op }) => op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('gives every operation a 2xx answer and, unless it truly has none, its 4xx error answers', () => {
    const all = operations(document.paths);
    const statuses = (op: Operation) => Object.keys(op.responses ?? {});
    const lacking = (rule: keyof typeof EXEMPT, prefix: string) =>
      all
        .filter(({ op }) => !exempt(rule, op) && !statuses(op).some((status) => status.startsWith(prefix)))
        .map(({ label }) => label);
    const no2xx = lacking('operation-2xx-response', '2');
    const no4xx = lacking('operation-4xx-response', '4');
    expect({ no2xx, no4xx }).toEqual({ no2xx: [], no4xx: [] });
  });

  it('names the MIT license', () => {
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it("lints clean under Redocly's recommended rules, warnings included", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const excused = (problem: NormalizedProblem) =>
      problem.ruleId in EXEMPT &&
      exempt(
        problem.ruleId as keyof typeof EXEMPT,
        operationAt(document.paths, problem.location[0]?.pointer ?? ''),
      );
    expect(problems.filter((problem) => !excused(problem)).map(describeProblem)).toEqual([]);
    // The exceptions are still real: an entry whose operation gained a 4xx, or vanished, is removed.
    const exceptions = Object.values(EXEMPT).flatMap((byOperation) => Object.keys(byOperation));
    expect(problems.filter(excused)).toHaveLength(exceptions.length);
  });
});
