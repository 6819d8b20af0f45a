// Every failure the curator sees names the action that failed and what went wrong, in words.
// Decisions are made on the error's kind, never on its message.
import { hasErrorKind, type ErrorKind } from '../../../shared/errors';

const KIND_HINTS: Record<ErrorKind, string> = {
  NotFound: 'not found',
  Conflict: 'conflict',
  Invalid: 'invalid input',
  Locked: 'the workspace is busy (locked); try again in a moment',
  Io: 'a file could not be read or written',
  Cancelled: 'cancelled',
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
  const message = errorText(err) || KIND_HINTS[kind as ErrorKind] || 'unknown error';
  return { action, kind, message };
}

/** A job the curator stopped (kind Cancelled), or a request the page itself aborted. */
export function isCancelled(err: unknown): boolean {
  return hasErrorKind(err, 'Cancelled') || (err instanceof DOMException && err.name === 'AbortError');
}
