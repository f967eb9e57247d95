// `npm install` builds everything; `npx linkhop ...` also runs this lifecycle script (npm installs the project
// to run its bin), and a start must not wait for a rebuild. So build only when the build is missing or older
// than a source file it is made from.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outputs = ['dist/cli/main.js', 'dist/web/index.html', 'packages/sdk/dist/index.js'].map((file) => join(root, file));
const inputs = ['src', 'web', 'packages/sdk/src', 'package.json', 'tsconfig.build.json'].map((path) => join(root, path));

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

const built = outputs.every((file) => existsSync(file));
const builtAt = built ? Math.min(...outputs.map((file) => statSync(file).mtimeMs)) : 0;
const changedAt = Math.max(...inputs.map(newest));
if (built && builtAt >= changedAt && process.env.LINKHOP_FORCE_BUILD !== '1') {
  console.log('linkhop: the build is up to date (LINKHOP_FORCE_BUILD=1 rebuilds)');
} else {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
