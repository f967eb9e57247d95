import type { ServerMode } from '../config.js';
import { startServer } from '../server.js';

/** `linkhop serve` and `linkhop engine`: run until SIGTERM/SIGINT. */
export async function runServe(mode: ServerMode): Promise<void> {
  await startServer(process.env, mode);
}
