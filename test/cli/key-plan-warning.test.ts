import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliOn } from '../helpers/cli.js';

/** `linkhop key create` on an organization whose plan has no API (issue #32, item 4). */

const dir = mkdtempSync(join(tmpdir(), 'linkhop-cli-keyplan-'));
const DATABASE_URL = `sqlite:${join(dir, 'keys.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const linkhop = cliOn(DATABASE_URL);

describe('linkhop key create and the plan', { timeout: 60_000 }, () => {
  it('mints the key for a Sidekick organization but warns on stderr that it gets 401 until the plan has the API', () => {
    const org = JSON.parse(linkhop('org', 'create', '--name', 'Small', '--tier', 'sidekick').lines[0] ?? '');
    const result = linkhop('key', 'create', org.orgId);
    expect(result.status).toBe(0);
    expect(result.lines).toHaveLength(1);
    expect(JSON.parse(result.lines[0] ?? '').apiKey).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(result.stderr).toBe(
      'warning: this organization is on Sidekick, which has no API: the key gets 401 until the organization ' +
        `is on a plan with the API (Legend: linkhop org set-tier ${org.orgId} legend)\n`,
    );
  });

  it('says nothing more for a Legend organization', () => {
    const org = JSON.parse(linkhop('org', 'create', '--name', 'Big', '--tier', 'legend').lines[0] ?? '');
    const result = linkhop('key', 'create', org.orgId);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.lines[0] ?? '').apiKey).toMatch(/^svc_/);
  });
});
