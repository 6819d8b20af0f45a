// Every failure the curator sees names the action that failed and what went wrong, in words.
const KIND_HINTS: Record<string, string> = {
  NotFound: 'not found',
  Conflict: 'conflict',
  Invalid: 'invalid input',
  Locked: 'the workspace is busy (locked); try again in a moment',
  Io: 'a file could not be read or written',
  Internal: 'internal error',
  RateLimited: 'too many requests; slow down',
  Unauthorized: 'not authorized (is the page URL missing its token?)',
};

export interface ReadableError {
  action: string;
  kind: string;
  message: string;
}

export function errorKind(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'kind' in err) return String((err as { kind: unknown }).kind);
  return 'Internal';
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

export function readableError(action: string, err: unknown): ReadableError {
  const kind = errorKind(err);
  let message = errorText(err) || KIND_HINTS[kind] || 'unknown error';
  // Channels whose service has not landed yet answer with a NotFound/Internal "not available" style message.
  if (/no handler|not (yet )?(implemented|registered)/i.test(message) && !/not available/i.test(message)) message = `${message} (this feature is not available yet)`;
  return { action, kind, message };
}

export function isCancelled(err: unknown): boolean {
  return (err instanceof DOMException && err.name === 'AbortError') || /cancel+ed|aborted/i.test(errorText(err));
}
