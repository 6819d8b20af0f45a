// Errors cross process and HTTP boundaries as data: { ok: false, error: { kind, message } }.
export const ERROR_KINDS = ['NotFound', 'Conflict', 'Invalid', 'Locked', 'Io', 'Internal', 'RateLimited', 'Unauthorized'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly details?: unknown;
  constructor(kind: ErrorKind, message: string, details?: unknown) {
    super(message);
    this.name = `${kind}Error`;
    this.kind = kind;
    this.details = details;
  }
}

export const notFound = (what: string) => new AppError('NotFound', `${what} not found`);
export const invalid = (message: string, details?: unknown) => new AppError('Invalid', message, details);
export const conflict = (message: string, details?: unknown) => new AppError('Conflict', message, details);

export interface ErrorEnvelope {
  ok: false;
  error: { kind: ErrorKind; message: string; details?: unknown };
}
export type Result<T> = { ok: true; value: T } | ErrorEnvelope;

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError || (typeof e === 'object' && e !== null && 'kind' in e && (ERROR_KINDS as readonly string[]).includes(String((e as { kind: unknown }).kind)));
}
