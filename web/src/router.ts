import { useEffect, useState } from 'react';

/**
 * Hash routes (`/#/links/123`): the dashboard lives at `/`, and every other path on the default host
 * is a short link, so the dashboard never claims a path a slug could want.
 */
export function currentPath(): string {
  const hash = window.location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export function useHashPath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

export function navigate(path: string): void {
  window.location.hash = path;
}

/** `/links/:id` against `/links/42?x=1` gives `{id: '42'}`; null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const bare = path.split('?')[0] ?? '';
  const want = pattern.split('/').filter(Boolean);
  const got = bare.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return params;
}

/** The query part of the hash route, e.g. `#/links?tag=promo`. */
export function hashQuery(path: string): URLSearchParams {
  const query = path.split('?')[1];
  return new URLSearchParams(query ?? '');
}
