import { BUILTIN_PLATFORMS } from './builtin/index.js';
import type { Platform, PlatformTable } from './types.js';
import { exactHost, hostCandidates, parseHttpUrl } from './url-parts.js';

interface Wrapper {
  /** Only this path is the wrapper (google.com/url); the rest of the host is ordinary content. */
  path?: string;
  /** Query parameters holding the real target, first present wins. Empty: the target hides behind a code. */
  params: readonly string[];
}

/*
 * Link wrappers point elsewhere and are never their platform's content. Code-based shorteners (t.co,
 * lnkd.in) are deliberately given no parameter: they redirect by code whatever the query says, so a
 * crafted `t.co/x?u=https://youtube.com/...` must not be classified as YouTube.
 */
const WRAPPERS: ReadonlyMap<string, readonly Wrapper[]> = new Map<string, Wrapper[]>([
  ['t.co', [{ params: [] }]],
  ['lnkd.in', [{ params: [] }]],
  ['l.facebook.com', [{ params: ['u'] }]],
  ['lm.facebook.com', [{ params: ['u'] }]],
  ['l.instagram.com', [{ params: ['u'] }]],
  ['l.messenger.com', [{ params: ['u'] }]],
  ['l.threads.com', [{ params: ['u'] }]],
  ['l.threads.net', [{ params: ['u'] }]],
  ['google.com', [{ path: '/url', params: ['q', 'url'] }]],
  ['youtube.com', [{ path: '/redirect', params: ['q'] }]],
  [
    'linkedin.com',
    [
      { path: '/safety/go', params: ['url'] },
      { path: '/redir/redirect', params: ['url'] },
    ],
  ],
]);

/** Hosts that are wholly wrappers: no platform may claim them. */
export const WRAPPER_HOSTS: ReadonlySet<string> = new Set(
  [...WRAPPERS].filter(([, list]) => list.some((w) => w.path === undefined)).map(([host]) => host),
);

// Facebook's shim inside Google's redirect inside Instagram's shim is real; more nesting is not.
const MAX_UNWRAP = 3;

function wrapperOf(url: URL): Wrapper | null {
  for (const host of hostCandidates(url.hostname)) {
    for (const w of WRAPPERS.get(host) ?? []) {
      if (w.path === undefined || url.pathname === w.path || url.pathname === `${w.path}/`) return w;
    }
  }
  return null;
}

/** The URL a chain of wrappers leads to, or null when a wrapper does not say where it goes. */
export function unwrap(url: URL): URL | null {
  let current = url;
  for (let depth = 0; depth <= MAX_UNWRAP; depth++) {
    const wrapper = wrapperOf(current);
    if (wrapper === null) return current;
    const value = wrapper.params.map((name) => current.searchParams.get(name)).find((v) => v);
    const target = value ? parseHttpUrl(value) : null;
    if (target === null) return null;
    current = target;
  }
  return null;
}

export function createPlatformTable(overrides: readonly Platform[] = []): PlatformTable {
  const byKey = new Map<string, Platform>();
  for (const platform of BUILTIN_PLATFORMS) byKey.set(platform.key, platform);
  // Map.set keeps a replaced key in its built-in position; the last override of a key wins.
  for (const platform of overrides) byKey.set(platform.key, platform);
  const platforms: readonly Platform[] = Object.freeze([...byKey.values()]);
  const fromOverride = new Set(overrides.filter((p) => byKey.get(p.key) === p));

  const exact = new Map<string, Platform>();
  const wildcard = new Map<string, Platform>();
  const scoped = new Map<string, Platform[]>();
  const claim = (platform: Platform): void => {
    for (const raw of [...platform.hosts, ...platform.shortHosts]) {
      const host = exactHost(raw);
      if (host.startsWith('*.')) wildcard.set(host.slice(2), platform);
      else exact.set(host, platform);
    }
    for (const raw of platform.scopedHosts ?? []) {
      const host = exactHost(raw);
      // later claims are asked first, so an override's scoped host wins too
      scoped.set(host, [platform, ...(scoped.get(host) ?? [])]);
    }
  };
  // Built-ins first, overrides last: a host claimed by an override wins.
  for (const platform of platforms) if (!fromOverride.has(platform)) claim(platform);
  for (const platform of platforms) if (fromOverride.has(platform)) claim(platform);

  const lookup = (url: URL): Platform | null => {
    const candidates = hostCandidates(url.hostname);
    for (const host of candidates) {
      const found = exact.get(host);
      if (found) return found;
    }
    if (wildcard.size > 0) {
      const host = candidates[0] ?? '';
      for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.', dot + 1)) {
        const found = wildcard.get(host.slice(dot + 1));
        if (found) return found;
      }
    }
    for (const host of candidates) {
      for (const platform of scoped.get(host) ?? []) {
        if (platform.contentTypeOf(url) !== null) return platform;
      }
    }
    return null;
  };

  return {
    platforms,
    byKey: (key) => byKey.get(key),
    match: (destination) => {
      const url = parseHttpUrl(destination);
      const inner = url && unwrap(url);
      return inner ? lookup(inner) : null;
    },
  };
}
