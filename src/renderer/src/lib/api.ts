// The contract client (src/renderer/src/api: IPC in Electron, HTTP in browser mode) behind one React
// context, so views never construct or choose a transport.
import { createContext, useContext } from 'react';
import type { ApiClient } from '../api';

export type { ApiClient };

export const ApiContext = createContext<ApiClient | null>(null);

export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('ApiContext missing');
  return api;
}
