/**
 * Whether the database answered last time anyone asked: fed by the pool (a connection made or handed out
 * is "up"; a client's error or a failed connect is "down"), read by /health and /metrics. It never pings
 * by itself: with no traffic it keeps the last thing it saw.
 */
export interface DbHealth {
  /** The database as last seen. */
  readonly up: boolean;
  /** Epoch ms of the last change between up and down (or of creation). */
  readonly since: number;
  /** The last connection-class error seen, as text; null once the database is up again. */
  readonly lastError: string | null;
  markUp(): void;
  /**
   * `startedAt` (epoch ms) is when the failed attempt began, for a connect: an attempt that began before
   * the latest success is older news than that success (it was slow, not refused), and changes nothing.
   */
  markDown(error: unknown, startedAt?: number): void;
  /** Called with the new state on every change (one log line per transition). */
  onChange(listener: (up: boolean, error: string | null) => void): void;
}

export function createDbHealth(now: () => number = Date.now): DbHealth {
  let up = true;
  let since = now();
  let lastError: string | null = null;
  let lastUpAt = Number.NEGATIVE_INFINITY;
  const listeners: ((up: boolean, error: string | null) => void)[] = [];
  const change = (next: boolean) => {
    if (next === up) return;
    up = next;
    since = now();
    for (const listener of listeners) {
      try {
        listener(up, lastError);
      } catch {
        // A listener's failure never reaches the pool that reported the change.
      }
    }
  };
  return {
    get up() {
      return up;
    },
    get since() {
      return since;
    },
    get lastError() {
      return lastError;
    },
    markUp() {
      lastError = null;
      lastUpAt = now();
      change(true);
    },
    markDown(error, startedAt) {
      if (startedAt !== undefined && startedAt < lastUpAt) return;
      lastError = error instanceof Error ? error.message : String(error);
      change(false);
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

/** One log line when the database is lost and one when it is back, however many requests met it. */
export function logDbHealth(
  health: DbHealth,
  logger: { info(msg: string): void; error(details: object, msg: string): void },
): void {
  health.onChange((up, error) => {
    if (up) logger.info('database reachable again');
    else logger.error({ reason: error }, 'database unreachable: serving links from cache, holding clicks');
  });
}
