// HTTP plumbing shared by browser mode's routes: the JSON envelope on the wire, bodies with a size limit,
// and the state every route reads (the runtime, auth, limits, the event stream).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorKind } from '../shared/errors';
import type { AppRuntime } from '../api/runtime';
import { toEnvelope } from '../api/errors';
import type { WebAuth } from './auth';
import type { IdempotencyStore } from './idempotency';
import type { RateLimiter } from './security';
import type { EventStream } from './events';

export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** A body this far over the limit is not drained to answer politely: the connection is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
export const ANONYMOUS_BUCKET = 'anonymous';

export const STATUS: Record<ErrorKind, number> = {
  NotFound: 404,
  Conflict: 409,
  Invalid: 400,
  Locked: 423,
  Io: 500,
  Cancelled: 499,
  Internal: 500,
  RateLimited: 429,
  Unauthorized: 401,
};

/** What the routes of one running server share. */
export interface WebContext {
  runtime: AppRuntime;
  auth: WebAuth;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  /** Absolute folder of the built renderer. */
  rendererDir: string;
  events: EventStream;
  /** The port the server listens on (known once it listens). */
  port(): number;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, kind: ErrorKind, message: string, extra: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  sendJson(res, STATUS[kind], { ok: false, error: { kind, message } });
}

/** Answers with the error envelope of anything thrown. */
export function sendThrown(res: ServerResponse, e: unknown): void {
  const env = toEnvelope(e);
  sendError(res, env.error.kind, env.error.message);
}

export class BodyTooLarge extends Error {
  constructor() {
    super(`request body is larger than ${MAX_BODY_BYTES / (1024 * 1024)} MB`);
  }
}

/** Reads the body; past MAX_BODY_BYTES it keeps draining (so the client reads a 413, not a reset) and then rejects. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
      else if (size > MAX_DRAIN_BYTES) req.destroy();
    });
    req.on('end', () => (size > MAX_BODY_BYTES ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

export function sendTooLarge(res: ServerResponse, message: string): void {
  res.setHeader('Connection', 'close');
  sendJson(res, 413, { ok: false, error: { kind: 'Invalid', message } });
}
