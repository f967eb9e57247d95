import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { get, post } from './api/client';
import type { Feature, Session } from './api/types';

interface SessionState {
  /** undefined while the first /api/session call is in flight; null when logged out. */
  session: Session | null | undefined;
  setSession: (session: Session | null) => void;
  refresh: () => Promise<void>;
  logout: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const refresh = useCallback(async () => {
    try {
      setSession(await get<Session>('/session'));
    } catch {
      setSession(null);
    }
  }, []);
  const logout = useCallback(async () => {
    try {
      await post('/auth/logout');
    } finally {
      setSession(null);
      window.location.hash = '/';
    }
  }, []);
  useEffect(() => {
    void refresh();
    const onExpired = () => setSession(null);
    window.addEventListener('linkhop:unauthenticated', onExpired);
    return () => window.removeEventListener('linkhop:unauthenticated', onExpired);
  }, [refresh]);
  return (
    <SessionContext.Provider value={{ session, setSession, refresh, logout }}>
      {children}
    </SessionContext.Provider>
  );
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** The logged-in session; pages behind the shell only render once it exists. */
export function useAuthed(): Session {
  const { session } = useSession();
  if (!session) throw new Error('useAuthed outside the logged-in shell');
  return session;
}

/**
 * The workspace the dashboard works in, or null logged out. Data hooks key what they fetch by it: the
 * server answers every /api read for the session's workspace.
 */
export function useWorkspaceId(): string | null {
  const { session } = useSession();
  return session ? session.org.id : null;
}

export function useFeature(feature: Feature): boolean {
  return useAuthed().features[feature];
}
