import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient, Principal } from './api/client';

export interface ConsoleSession {
  api: ApiClient;
  principal: Principal;
  canEdit: boolean;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

export function useSession(): ConsoleSession {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in console');
  return value;
}
