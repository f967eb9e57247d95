// The redirect bench's load generator. wrk (C, one thread) when it is installed (`apt-get install wrk`),
// else autocannon; BENCH_LOADGEN=autocannon forces autocannon. On a two-core machine the generator shares
// the CPU with the server under test: autocannon, being JavaScript, needs about a core of its own at
// 70,000 req/s, so what it measures is as much the contention for that core as the server. wrk needs a
// fraction of that, so its ratios say more about the servers. Both print the same result shape.
import { execFile, execFileSync } from 'node:child_process';
import autocannon from 'autocannon';

function hasWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    return error.code !== 'ENOENT';
  }
}

export const generator = process.env.BENCH_LOADGEN === 'autocannon' || !hasWrk() ? 'autocannon' : 'wrk';

/** Milliseconds from wrk's latency notation (`812.00us`, `1.20ms`, `2.00s`). */
function ms(text) {
  const [, value, unit] = /^([\d.]+)(us|ms|s)$/.exec(text) ?? [];
  const factor = { us: 0.001, ms: 1, s: 1000 }[unit];
  return factor === undefined ? Number.NaN : Number(value) * factor;
}

function wrk({ url, connections, duration, userAgent }) {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${duration}s`,
    '--latency',
    '-H',
    `user-agent: ${userAgent}`,
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { encoding: 'utf8' }, (error, out) => {
      if (error) return reject(error);
      const total = Number(/(\d+) requests in/.exec(out)?.[1]);
      const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      resolve({
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
        total,
        p50: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''),
        p99: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
        // wrk counts statuses outside 2xx and 3xx; the bench checks the exact status once per scenario.
        errors:
          Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) +
          (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
      });
    });
  });
}

async function withAutocannon({ url, connections, duration, userAgent }) {
  const result = await autocannon({ url, connections, duration, headers: { 'user-agent': userAgent } });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors:
      result.errors +
      result.non2xx -
      (result.statusCodeStats?.['301']?.count ?? 0) -
      (result.statusCodeStats?.['302']?.count ?? 0),
  };
}

/** `{rps, total, p50, p99, errors}` for `duration` seconds of `connections` keep-alive connections. */
export function load(options) {
  return generator === 'wrk' ? wrk(options) : withAutocannon(options);
}
