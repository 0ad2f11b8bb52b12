import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from './client';

export const ApiContext = createContext<ApiClient | null>(null);

/** The signed-in account's API client. */
export function useApi(): ApiClient {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useApi() outside a signed-in dashboard');
  return client;
}
