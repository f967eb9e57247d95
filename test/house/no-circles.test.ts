import { join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { expect, it } from 'vitest';

/**
 * The house has no import circles (issue #21), and migrations, which are frozen history, import no
 * domain code: dependency-cruiser reads every import of the server and the dashboard, and a new circle or
 * a migration reaching into a domain fails here, naming the files.
 */

const root = join(import.meta.dirname, '..', '..');

it('no import circles in src/ and web/src/; migrations import nothing but kysely, node and each other', async () => {
  const result = await cruise(['src', 'web/src'], {
    baseDir: root,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(root, 'tsconfig.json') },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.css$' },
    validate: true,
    ruleSet: {
      forbidden: [
        { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
        {
          name: 'migrations-are-frozen',
          severity: 'error',
          from: { path: '^src/store/migrations/' },
          to: { path: '^src/', pathNot: '^src/store/migrations/' },
        },
      ],
    },
  });
  const output = result.output as ICruiseResult;
  const violations = output.summary.violations.map(
    (v) =>
      `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`,
  );
  expect(violations).toEqual([]);
  // The cruise really read the house: hundreds of modules, not an empty match.
  expect(output.summary.totalCruised).toBeGreaterThan(300);
});
