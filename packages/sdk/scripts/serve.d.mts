export interface Serve {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Runs a CLI command against the same database and returns its one JSON line. */
  cli(args: string[]): unknown;
  stop(): Promise<void>;
}
export function startServe(env?: Record<string, string>): Promise<Serve>;
