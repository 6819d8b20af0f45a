// Maps anything a handler throws to an error kind the UI can act on.
import { ZodError } from 'zod';
import { AppError, isAppError, type ErrorBody, type ErrorEnvelope } from '../shared/errors';

const FS_NOT_FOUND = new Set(['ENOENT', 'ENOTDIR']);
const FS_IO = new Set(['EACCES', 'EPERM', 'EISDIR', 'ENOSPC', 'EROFS', 'EEXIST', 'EMFILE', 'EIO', 'EXDEV', 'ENOTEMPTY']);

export function zodMessage(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`)
    .join('; ');
}

/**
 * Where a NUL character hides in an input (a string, or an object key, at any depth), or null.
 * No input of ours may carry one: SQLite, file paths and FTS would each mishandle it.
 */
export function nulPath(value: unknown, at = 'input', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  if (depth > 64 || typeof value !== 'object' || value === null) return null;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const where = Array.isArray(value) ? `${at}[${k}]` : at === 'input' ? k : `${at}.${k}`;
    if (k.includes('\u0000')) return where;
    const found = nulPath(v, where, depth + 1);
    if (found) return found;
  }
  return null;
}

export function toErrorBody(e: unknown): ErrorBody {
  if (isAppError(e)) {
    const err = e as AppError;
    return err.details === undefined
      ? { kind: err.kind, message: err.message }
      : { kind: err.kind, message: err.message, details: err.details };
  }
  if (e instanceof ZodError) return { kind: 'Invalid', message: zodMessage(e) };
  // signal.throwIfAborted() throws the platform's AbortError: the work was stopped, not broken.
  if (e instanceof Error && e.name === 'AbortError') return { kind: 'Cancelled', message: e.message || 'cancelled' };
  const code = typeof e === 'object' && e !== null ? String((e as { code?: unknown }).code ?? '') : '';
  const message = e instanceof Error ? e.message : String(e);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'ELOCKED') return { kind: 'Locked', message };
  if (code.startsWith('SQLITE_CONSTRAINT')) return { kind: 'Conflict', message };
  if (FS_NOT_FOUND.has(code)) return { kind: 'NotFound', message };
  // Node refuses a NUL (or another impossible value) in a path before touching the disk: bad input, not a crash.
  if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE') return { kind: 'Invalid', message };
  if (FS_IO.has(code)) return { kind: 'Io', message };
  return { kind: 'Internal', message: message || 'internal error' };
}

export function toEnvelope(e: unknown): ErrorEnvelope {
  return { ok: false, error: toErrorBody(e) };
}
