// The renderer's additions to the browser's Window, declared once.
import type { ApiTransport } from '../../shared/contract';

declare global {
  interface Window {
    /** Set by the preload in Electron; absent in browser mode. */
    api?: ApiTransport;
    /** Key press → next sample painted, in ms; read by bench/ui.ts. */
    __reviewTimings?: number[];
    MonacoEnvironment?: { getWorker: (workerId: string, label: string) => Worker };
  }
}

export {};
