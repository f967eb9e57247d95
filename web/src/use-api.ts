import { useCallback, useEffect, useRef, useState } from 'react';
import { get, messageOf } from './api/client';
import { useWorkspaceId } from './session';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => Promise<void>;
  /** Replace the data locally after a write that answered the new value. */
  setData: (value: T) => void;
}

/**
 * GET `path` (under /api) on mount and whenever `path` or the workspace changes; `null` skips the call.
 * Every answer is kept with the workspace it was asked for: after a workspace switch the hook shows nothing
 * of the old workspace (no data, no error) while the new one loads, and an answer that arrives late for the
 * old workspace (or an old path) is dropped. The server answers for the session's workspace, so the
 * workspace is part of what a GET means, as the path is.
 */
export function useApi<T>(path: string | null): Loaded<T> {
  const workspace = useWorkspaceId();
  const [held, setHeld] = useState<{ workspace: string | null; data: T | undefined; error?: string }>({
    workspace,
    data: undefined,
  });
  const [loading, setLoading] = useState(path !== null);
  const key = path === null ? null : `${workspace} ${path}`;
  const latest = useRef(key);
  latest.current = key;

  const reload = useCallback(async () => {
    if (path === null || key === null) return;
    setLoading(true);
    try {
      const value = await get<T>(path);
      if (latest.current === key) setHeld({ workspace, data: value });
    } catch (err) {
      if (latest.current === key)
        setHeld((now) => ({
          workspace,
          data: now.workspace === workspace ? now.data : undefined,
          error: messageOf(err),
        }));
    } finally {
      if (latest.current === key) setLoading(false);
    }
  }, [path, key, workspace]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const setData = useCallback((value: T) => setHeld({ workspace, data: value }), [workspace]);
  const current = held.workspace === workspace;
  return {
    data: current ? held.data : undefined,
    error: current ? held.error : undefined,
    loading: loading || !current,
    reload,
    setData,
  };
}
