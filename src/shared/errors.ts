// Errors cross process and HTTP boundaries as data: { ok: false, error: { kind, message } }.
// Cancelled is its own kind so the UI can tell a stopped job from a failed one without reading the message.
export const ERROR_KINDS = [
  'NotFound',
  'Conflict',
  'Invalid',
  'Locked',
  'Io',
  'Cancelled',
  'Internal',
  'RateLimited',
  'Unauthorized',
] as const;
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

/** What long work throws when its signal was aborted: the curator stopped it, nothing failed. */
export const cancelled = (what: string) => new AppError('Cancelled', `${what} cancelled`);

export interface ErrorBody {
  kind: ErrorKind;
  message: string;
  details?: unknown;
}
export interface ErrorEnvelope {
  ok: false;
  error: ErrorBody;
}
export type Result<T> = { ok: true; value: T } | ErrorEnvelope;

export function isAppError(e: unknown): e is AppError {
  return (
    e instanceof AppError ||
    (typeof e === 'object' &&
      e !== null &&
      'kind' in e &&
      (ERROR_KINDS as readonly string[]).includes(String((e as { kind: unknown }).kind)))
  );
}

/** True for an error of this kind, whether an AppError or an envelope's error body. */
export const hasErrorKind = (e: unknown, kind: ErrorKind): boolean => isAppError(e) && e.kind === kind;
