// Maps anything a handler throws to an error kind the UI can act on.
import { ZodError } from 'zod';
import { AppError, isAppError, type ErrorEnvelope, type ErrorKind } from '../../shared/errors';

const FS_NOT_FOUND = new Set(['ENOENT', 'ENOTDIR']);
const FS_IO = new Set(['EACCES', 'EPERM', 'EISDIR', 'ENOSPC', 'EROFS', 'EEXIST', 'EMFILE', 'EIO', 'EXDEV', 'ENOTEMPTY']);

export function zodMessage(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`)
    .join('; ');
}

export function toErrorBody(e: unknown): { kind: ErrorKind; message: string; details?: unknown } {
  if (isAppError(e)) {
    const err = e as AppError;
    return err.details === undefined ? { kind: err.kind, message: err.message } : { kind: err.kind, message: err.message, details: err.details };
  }
  if (e instanceof ZodError) return { kind: 'Invalid', message: zodMessage(e) };
  const code = typeof e === 'object' && e !== null ? String((e as { code?: unknown }).code ?? '') : '';
  const message = e instanceof Error ? e.message : String(e);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'ELOCKED') return { kind: 'Locked', message };
  if (code.startsWith('SQLITE_CONSTRAINT')) return { kind: 'Conflict', message };
  if (FS_NOT_FOUND.has(code)) return { kind: 'NotFound', message };
  if (FS_IO.has(code)) return { kind: 'Io', message };
  return { kind: 'Internal', message: message || 'internal error' };
}

export function toEnvelope(e: unknown): ErrorEnvelope {
  return { ok: false, error: toErrorBody(e) };
}
