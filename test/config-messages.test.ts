import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';
import { childEnv } from './helpers/env.js';

/** Issue #32, item 5: a wrong variable is one plain sentence naming it and what it accepts. */

const messageOf = (env: Record<string, string>): string => {
  try {
    parseConfig(env, 'hosted');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('parseConfig accepted it');
};

describe('configuration errors', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT must be a port number from 0 to 65535 (e.g. 3000), not "abc"'],
    [{ PORT: '70000' }, 'PORT must be a port number from 0 to 65535 (e.g. 3000), not "70000"'],
    [{ SIGNUP_TIER: 'gold' }, 'SIGNUP_TIER must be one of sidekick, hero, legend, not "gold"'],
    [
      { DATABASE_URL: 'nonsense' },
      'DATABASE_URL must be sqlite:<path> (e.g. sqlite:./data/linkhop.db) or postgres://user:password@host:5432/database, not "nonsense"',
    ],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
    ],
    [{ ANALYTICS: 'maybe' }, 'ANALYTICS must be on or off, not "maybe"'],
    [
      { FLAGS_OFF: 'nope' },
      'FLAGS_OFF must be a comma list of linkInBio, mediaKit, audienceCapture, dmAutomations, broadcasts, not "nope"',
    ],
  ])('%j: %s', (env, sentence) => {
    expect(messageOf(env)).toBe(sentence);
  });

  it('never repeats what may be a password: a URL shows its scheme only', () => {
    const message = messageOf({ DATABASE_URL: 'mysql://root:hunter2@db:3306/links' });
    expect(message).toBe(
      'DATABASE_URL must be sqlite:<path> (e.g. sqlite:./data/linkhop.db) or postgres://user:password@host:5432/database, not "mysql://…"',
    );
    expect(message).not.toContain('hunter2');
  });

  it('several wrong variables: each one its own line under one heading', () => {
    const error = (() => {
      try {
        parseConfig({ PORT: 'abc', SIGNUP_TIER: 'gold' }, 'hosted');
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('accepted');
    })();
    expect(error.problems).toEqual([
      'PORT must be a port number from 0 to 65535 (e.g. 3000), not "abc"',
      'SIGNUP_TIER must be one of sidekick, hero, legend, not "gold"',
    ]);
    expect(error.message).toBe(`Invalid configuration:\n  - ${error.problems.join('\n  - ')}`);
  });
});

describe('linkhop serve with a wrong variable', () => {
  const CLI = join(import.meta.dirname, '../dist/cli/main.js');
  it.each([
    [{ PORT: 'abc' }, 'PORT must be a port number from 0 to 65535 (e.g. 3000), not "abc"'],
    [{ SIGNUP_TIER: 'gold' }, 'SIGNUP_TIER must be one of sidekick, hero, legend, not "gold"'],
    [
      { DATABASE_URL: 'nonsense' },
      'DATABASE_URL must be sqlite:<path> (e.g. sqlite:./data/linkhop.db) or postgres://user:password@host:5432/database, not "nonsense"',
    ],
    // Not a ClickHouse URL: refused with its scheme named, the password never shown.
    [
      { ANALYTICS_URL: 'https://user:secret@127.0.0.1:8123/analytics' },
      'ANALYTICS_URL: unsupported scheme https: (expected clickhouse: or clickhouses:), not "https://…"',
    ],
  ])('%j: exits non-zero with one sentence on stderr, no stack trace', (env, sentence) => {
    const result = spawnSync(process.execPath, [CLI, 'serve'], { env: childEnv(env), encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`linkhop: ${sentence}\n`);
  });
});
