/**
 * The environment for a child linkhop process: ours, minus what Vitest injects (Vite sets BASE_URL to
 * '/', which is not an origin) and minus anything the test did not mean to pass.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'BASE_URL',
    'MODE',
    'DEV',
    'PROD',
    'SSR',
    'DATABASE_URL',
    'PORT',
    'API_TOKEN',
    'REDIS_URL',
    'PLATFORMS_FILE',
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}
