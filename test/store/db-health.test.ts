import { describe, expect, it } from 'vitest';
import { createDbHealth } from '../../src/store/db-health.js';

/** The database health tracker: one change per transition, and newer evidence wins over older news. */
describe('database health', () => {
  const tracker = () => {
    let clock = 1000;
    const health = createDbHealth(() => clock);
    const changes: string[] = [];
    health.onChange((up, error) => changes.push(up ? 'up' : `down: ${error}`));
    return { health, changes, at: (ms: number) => (clock = ms) };
  };

  it('tells each transition once, however many failures and successes repeat it', () => {
    const { health, changes, at } = tracker();
    at(2000);
    health.markDown(new Error('read ECONNRESET'));
    health.markDown(new Error('write ECONNRESET'));
    expect(health.up).toBe(false);
    expect(health.since).toBe(2000);
    expect(health.lastError).toBe('write ECONNRESET');
    at(7000);
    health.markUp();
    health.markUp();
    expect(changes).toEqual(['down: read ECONNRESET', 'up']);
    expect(health.lastError).toBeNull();
  });

  it('a connect begun before the latest success and failing after it changes nothing', () => {
    const { health, changes, at } = tracker();
    at(2000);
    health.markDown(new Error('connect ECONNREFUSED'));
    // Two connects start as the database comes back; the second one succeeds first.
    at(7100);
    health.markUp();
    at(8000);
    health.markDown(new Error('Connection terminated due to connection timeout'), 6900);
    expect(health.up).toBe(true);
    expect(changes).toEqual(['down: connect ECONNREFUSED', 'up']);
    // A connect begun after that success which fails is news: the database is down again.
    health.markDown(new Error('connect ECONNREFUSED'), 7500);
    expect(health.up).toBe(false);
    // So is a failure with no start time (a live connection's error).
    at(9000);
    health.markUp();
    health.markDown(new Error('read ECONNRESET'));
    expect(changes).toEqual([
      'down: connect ECONNREFUSED',
      'up',
      'down: connect ECONNREFUSED',
      'up',
      'down: read ECONNRESET',
    ]);
  });
});
