import { join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { expect, it } from 'vitest';

/**
 * The deep-link core (`src/core/`) is pure: no file, socket, database, cache or HTTP framework, and no
 * import of any folder outside it. What both servers share and the tests drive by the thousand stays a
 * set of functions of their inputs; I/O belongs to the domains that call it.
 */
const root = join(import.meta.dirname, '..', '..');
const IO = ['fs', 'net', 'http', 'https', 'http2', 'dns', 'child_process', 'worker_threads', 'tls', 'dgram'];

it('src/core imports nothing outside src/core but zod, isbot and pure node modules', async () => {
  const result = await cruise(['src/core'], {
    baseDir: root,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(root, 'tsconfig.json') },
    doNotFollow: { path: 'node_modules' },
    validate: true,
    ruleSet: {
      forbidden: [
        {
          name: 'core-stays-in-core',
          severity: 'error',
          from: { path: '^src/core/' },
          to: { path: '^src/', pathNot: '^src/core/' },
        },
        {
          name: 'core-does-no-io',
          severity: 'error',
          from: { path: '^src/core/' },
          to: { path: `^(node:)?(${IO.join('|')})(/|$)` },
        },
        {
          name: 'core-uses-no-framework-or-store',
          severity: 'error',
          from: { path: '^src/core/' },
          to: { path: 'node_modules/(fastify|@fastify|kysely|better-sqlite3|pg|ioredis|undici|nodemailer)/' },
        },
      ],
    },
  });
  const output = result.output as ICruiseResult;
  const violations = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  expect(violations).toEqual([]);
  expect(output.summary.totalCruised).toBeGreaterThan(30);
});
