import type { CompiledDestination } from '../../src/core/destination.js';
import type { HostedLinkEntry } from '../../src/redirect/link-cache.js';
import { createPasswordCookies } from '../../src/redirect/password-gate.js';
import type { HostedRedirectDeps } from '../../src/redirect/visit.js';

/** A hosted link whose one destination is `compiled`: no powers, no password, recorded. */
export function linkEntryOf(
  compiled: CompiledDestination,
  over: Partial<HostedLinkEntry> = {},
): HostedLinkEntry {
  return {
    id: 'link-1',
    orgId: 'org-1',
    host: '',
    slug: 'abc',
    branded: false,
    recorded: true,
    passwordHash: null,
    pixels: [],
    fallback: null,
    link: { fallback: compiled, sched: [], ab: null, routing: null, expiry: null },
    ...over,
  };
}

/**
 * What the performer (redirect/visit.ts performVisit) reads of its deps, for tests that drive it without a
 * server: the responder, analytics and the bandit's chooser are the test's.
 */
export function performerDeps(
  over: Partial<HostedRedirectDeps> & Pick<HostedRedirectDeps, 'respondToVisit' | 'classify'>,
): HostedRedirectDeps {
  return {
    geoHeader: 'x-country',
    passwordCookies: createPasswordCookies('test-secret'),
    nonce: () => 'n0nce',
    analytics: null,
    defaultHost: 'lnk.example',
    now: Date.now,
    random: Math.random,
    ...over,
  } as HostedRedirectDeps;
}
