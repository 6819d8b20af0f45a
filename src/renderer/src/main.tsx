import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getApiClient, type ApiClient } from './api';
import { App } from './App';
import { ErrorMessage } from './components/ErrorMessage';
import { ApiContext } from './lib/api';
import { createQueryClient, trackingClient } from './lib/queries';
import './styles/app.css';

const root = createRoot(document.getElementById('root')!);
let client: ApiClient | null = null;
let failure: unknown = null;
try {
  client = trackingClient(getApiClient());
} catch (e) {
  failure = e;
}

root.render(
  <StrictMode>
    {client ? (
      <ApiContext.Provider value={client}>
        <QueryClientProvider client={createQueryClient()}>
          <App />
        </QueryClientProvider>
      </ApiContext.Provider>
    ) : (
      <div className="pad">
        <h1>Reflection Workbench</h1>
        <ErrorMessage action="Connecting to the workbench" error={failure} />
      </div>
    )}
  </StrictMode>,
);
