// A client whose calls reach main in the order they were made. Over HTTP two requests can overtake
// each other (separate connections, bodies read asynchronously), and over IPC an async handler can
// yield; then a hold asked for before a label but handled after it holds a sample already decided.
// Each call here is sent only once the one before it has settled (failed calls do not stop the line).
import type { ApiClient, ArgsOf } from '../api';
import type { Channel, OutputOf } from '../../../shared/contract';

// One line per client: a Review view that unmounts and mounts again gives its holds back before it
// takes them again, through the same line.
const lines = new WeakMap<ApiClient, ApiClient>();

export function orderedClient(api: ApiClient): ApiClient {
  let line = lines.get(api);
  if (!line) lines.set(api, (line = inOrder(api)));
  return line;
}

function inOrder(api: ApiClient): ApiClient {
  let last: Promise<unknown> = Promise.resolve();
  const call = <C extends Channel>(channel: C, ...args: ArgsOf<C>): Promise<OutputOf<C>> => {
    const next = last.then(() => api.call(channel, ...args));
    last = next.catch(() => undefined);
    return next;
  };
  return {
    mode: api.mode,
    call,
    runJob: (channel, input, opts) => api.runJob(channel, input, opts),
    onChange: (cb) => api.onChange(cb),
    downloadUrl: (exportId, fileName) => api.downloadUrl(exportId, fileName),
  };
}
