import type { Config, ServerMode } from '../config.js';
import type { Store } from '../store/database.js';

/**
 * `linkhop serve` and `linkhop engine`: run until SIGTERM/SIGINT. Each loads only its own process module:
 * the engine's loads neither Fastify nor Zod (config.ts, which server.ts imports, is Zod).
 */
export async function runServe(mode: ServerMode): Promise<void> {
  if (mode === 'engine') {
    await (await import('../engine-server.js')).startEngineServer(process.env);
    return;
  }
  const running = await (await import('../server.js')).startServer(process.env);
  await announceHosted(running);
}

/**
 * Where a person opens the dashboard: BASE_URL when it was set, else localhost at the port the server
 * really listens on (PORT=0 picks one).
 */
export function dashboardAddress(config: Pick<Config, 'baseUrl' | 'port'>, listening: string): string {
  if (config.baseUrl !== `http://localhost:${config.port}`) return config.baseUrl;
  const port = new URL(listening).port;
  return port ? `http://localhost:${port}` : config.baseUrl;
}

interface StartLogger {
  info(details: object, message: string): void;
}

/**
 * The hosted service's lines for a person at the terminal: where to open the dashboard, and, on an
 * instance with no organization yet, that the first account signed up is the operator's, on Legend.
 */
export async function announceHosted(running: {
  app: { log: StartLogger };
  store: Store;
  config: Pick<Config, 'baseUrl' | 'port'>;
  url: string;
}): Promise<void> {
  const { createAccountRepo } = await import('../accounts/repo.js');
  const empty = !(await createAccountRepo(running.store).hasAnyOrganization());
  const dashboard = dashboardAddress(running.config, running.url);
  const log = running.app.log;
  log.info(
    { dashboard },
    `linkhop is serving on ${dashboard} — open it in a browser to ${empty ? 'sign up' : 'sign up or log in'}`,
  );
  if (empty)
    log.info(
      { operatorPlan: 'legend' },
      'No organization yet: the first account signed up becomes the operator, on Legend (every feature, the API included)',
    );
}
