import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/env.js';

/** `linkhop serve` on a fresh database, as a self-hoster first runs it (issue #32, items 4 and 5). */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'linkhop-first-hour-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Line = Record<string, unknown>;

function serve(): {
  child: ChildProcess;
  lines: Line[];
  waitFor: (match: (line: Line) => boolean) => Promise<Line>;
} {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: childEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: `sqlite:${join(dir, 'fresh.db')}`,
    }),
  });
  const lines: Line[] = [];
  let buffer = '';
  const waiters: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, end)) as Line;
      buffer = buffer.slice(end + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.match(line))) waiter.resolve(line);
    }
  });
  const waitFor = (match: (line: Line) => boolean) =>
    new Promise<Line>((resolve, reject) => {
      const found = lines.find(match);
      if (found) return resolve(found);
      waiters.push({ match, resolve });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${JSON.stringify(lines)}`)));
    });
  return { child, lines, waitFor };
}

describe('linkhop serve on an empty database', { timeout: 60_000 }, () => {
  it('says where to open the dashboard, that the first account is the operator, and prints the sign-up link', async () => {
    const { child, lines, waitFor } = serve();
    try {
      const listening = await waitFor((line) => typeof line.url === 'string');
      const url = String(listening.url);
      const port = new URL(url).port;
      const start = await waitFor((line) => typeof line.dashboard === 'string');
      expect(start.msg).toBe(
        `linkhop is serving on http://localhost:${port} — open it in a browser to sign up`,
      );
      const operator = await waitFor((line) => String(line.msg).startsWith('No organization yet'));
      expect(operator.msg).toBe(
        'No organization yet: the first account signed up becomes the operator, on Legend (every feature, the API included)',
      );

      const response = await fetch(`${url}/api/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'me@example.com', password: 'password1', orgName: 'Mine' }),
      });
      expect(response.status).toBe(202);
      expect(((await response.json()) as { delivery: string }).delivery).toBe('server_log');
      const link = await waitFor((line) => typeof line.link === 'string');
      expect(link.msg).toBe(
        `Sign-up confirmation link for me@example.com (no SMTP configured, so it is printed here): ${link.link}`,
      );
      const requestLine = await waitFor((line) => line.url === '/api/auth/signup');
      expect(requestLine).toMatchObject({ method: 'POST', statusCode: 202 });
      expect(requestLine.msg).toMatch(/^POST \/api\/auth\/signup 202 [\d.]+ ms$/);
      expect(lines.some((line) => line.msg === 'incoming request')).toBe(false);
    } finally {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    }
  });
});
