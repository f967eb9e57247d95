/**
 * The loop behind the outbox workers (webhook deliveries, broadcast mail): a pass claims and handles up
 * to `batchSize` rows; full passes repeat at once, a timer polls, `nudge` runs a pass now. Single flight:
 * a nudge during a pass asks it to go round once more instead of overlapping.
 */
export interface PollingLoopOptions {
  /** Handles one batch; resolves with the number of rows it took. */
  pass: () => Promise<number>;
  batchSize: number;
  intervalMs: number;
  onError: (error: unknown) => void;
}

export function createPollingLoop(options: PollingLoopOptions) {
  const { pass, batchSize } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          while ((await pass()) === batchSize && !stopped) {}
        } while (again && !stopped);
      } catch (error) {
        options.onError(error);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  return {
    start(): void {
      stopped = false;
      if (timer) return;
      timer = setInterval(() => void run(), options.intervalMs);
      timer.unref();
      void run();
    },

    /** Something was just queued: handle it now rather than at the next poll. */
    nudge(): void {
      if (!stopped) void run();
    },

    /** Handles everything claimable now and resolves when none is left (tests; a graceful shutdown). */
    async drain(): Promise<void> {
      while (running) await running;
      while ((await pass()) > 0) {}
    },

    /** Stops polling and waits for the pass in flight; rows not yet claimed stay queued. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      while (running) await running;
    },
  };
}
