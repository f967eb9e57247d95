// What every bench that starts a server waits on: its /health answering 200, polled every 50 ms.
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `${url}/health` answers 200; throws after `tries` polls (10 s at the default). */
export async function waitForHealth(url, tries = 200) {
  for (let i = 0; i < tries; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {}
    await sleep(50);
  }
  throw new Error(`${url} did not come up`);
}
