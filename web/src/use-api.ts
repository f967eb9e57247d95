import { useCallback, useEffect, useRef, useState } from 'react';
import { get, messageOf } from './api/client';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => Promise<void>;
  /** Replace the data locally after a write that answered the new value. */
  setData: (value: T) => void;
}

/** GET `path` (under /api) on mount and whenever `path` changes; `null` skips the call. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(path !== null);
  const latest = useRef(path);
  latest.current = path;

  const reload = useCallback(async () => {
    if (path === null) return;
    setLoading(true);
    try {
      const value = await get<T>(path);
      if (latest.current === path) {
        setData(value);
        setError(undefined);
      }
    } catch (err) {
      if (latest.current === path) setError(messageOf(err));
    } finally {
      if (latest.current === path) setLoading(false);
    }
  }, [path]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { data, error, loading, reload, setData };
}
