import { type Serve, startServe } from '../../packages/sdk/scripts/serve.mjs';
import { Linkhop, type LinkhopOptions } from '../../packages/sdk/src/index.js';

/**
 * The SDK against a real `linkhop serve` (built dist/, SQLite, a free loopback port), with organizations
 * made by the CLI as a user makes them.
 */
export interface SdkServer {
  serve: Serve;
  /** A fresh legend organization (every feature, the API included) and its first key. */
  org(name?: string): { orgId: string; apiKey: string };
  client(apiKey: string, options?: Partial<LinkhopOptions>): Linkhop;
}

export async function startSdkServer(env: Record<string, string> = {}): Promise<SdkServer> {
  const serve = await startServe(env);
  let made = 0;
  return {
    serve,
    org(name = `SDK org ${++made}`) {
      return serve.cli(['org', 'create', '--name', name, '--tier', 'legend']) as {
        orgId: string;
        apiKey: string;
      };
    },
    client(apiKey, options = {}) {
      return new Linkhop({ apiKey, baseUrl: serve.url, ...options });
    },
  };
}

/** Sleeps that are only written down: a retry test checks what was waited, without waiting it. */
export function recordedSleeps(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}
