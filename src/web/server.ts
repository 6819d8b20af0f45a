// Browser mode: the same handler registry over HTTP on 127.0.0.1 only. Serves the built renderer,
// POST /api/<channel>, GET /api/events (server-sent change events) and GET /api/download (export
// files the workbench wrote, through one-use tickets). Who may call is decided in auth.ts: the URL
// token is exchanged once for a cookie; API clients may send it in a header; never in an API query.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { AppRuntime } from '../api/runtime';
import { toEnvelope } from '../api/errors';
import { singleTokenAuth, WebAuth, type Authenticate, type Principal } from './auth';
import { IdempotencyStore } from './idempotency';
import {
  applySecurityHeaders,
  DEFAULT_RATE_LIMIT,
  hostAllowed,
  newToken,
  originAllowed,
  RateLimiter,
  type RateLimitOptions,
} from './security';
import { runAsPrincipal, withCuratorTokens } from '../core/curation/webPrincipal';
import { ANONYMOUS_BUCKET, MAX_BODY_BYTES, sendError, sendJson, sendTooLarge, STATUS, type WebContext } from './http';
import { EventStream } from './events';
import { handleApiCall } from './apiCall';
import { handleDownload, handleTicketRequest } from './downloads';
import { serveStatic } from './static';

export const TOKEN_HEADER = 'x-reflection-token';

export interface WebServerOptions {
  runtime: AppRuntime;
  /** Folder of the built renderer (out/renderer). */
  rendererDir: string;
  port?: number;
  /** The token printed in the URL; a new random one on every start by default (tokens rotate on restart). */
  token?: string;
  /** Which tokens are valid, and whose they are; default: only `token`. */
  authenticate?: Authenticate;
  rateLimit?: RateLimitOptions;
}

export interface WebServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const { runtime } = opts;
  const token = opts.token ?? newToken();
  let port = 0;
  const ctx: WebContext = {
    runtime,
    // Curators' own tokens (reflection curator add) are valid beside the owner's session token.
    auth: new WebAuth(opts.authenticate ?? withCuratorTokens(singleTokenAuth(token), () => runtime.session.db)),
    limiter: new RateLimiter(opts.rateLimit ?? DEFAULT_RATE_LIMIT),
    idempotency: new IdempotencyStore(() => runtime.session.db),
    rendererDir: path.resolve(opts.rendererDir),
    events: new EventStream(),
    port: () => port,
  };
  const unsubscribe = runtime.session.onChange((event) => ctx.events.broadcast(event));
  const server = http.createServer((req, res) => handleRequest(ctx, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: never reachable from another machine.
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        unsubscribe();
        ctx.events.close();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

/** Every request: host, origin and fetch-site checks, the body limit, who is calling and their rate limit. */
function handleRequest(ctx: WebContext, req: IncomingMessage, res: ServerResponse): void {
  const port = ctx.port();
  applySecurityHeaders(res);
  // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
  if (!hostAllowed(req, port)) return sendError(res, 'Unauthorized', 'Host not allowed');
  if (!originAllowed(req, port)) return sendError(res, 'Unauthorized', 'cross-origin requests are not allowed');
  const fetchSite = req.headers['sec-fetch-site'];
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none')
    return sendError(res, 'Unauthorized', 'cross-site requests are not allowed');
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
  if (!url.pathname.startsWith('/api/')) return serveStatic(ctx, url, req, res);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return sendTooLarge(res, `request body is larger than ${MAX_BODY_BYTES / (1024 * 1024)} MB`);
  }
  const principal = ctx.auth.principalOf(req, port, TOKEN_HEADER);
  // Buckets by principal, one shared bucket for everything unauthenticated (token guessing included).
  const wait = ctx.limiter.take(principal ? `principal:${principal.id}` : ANONYMOUS_BUCKET);
  if (wait > 0) return sendError(res, 'RateLimited', 'too many requests', { 'Retry-After': String(Math.max(1, Math.ceil(wait))) });
  route(ctx, req, res, url, principal);
}

/** /api/<name>: downloads, the event stream, download tickets, and channel calls run as the caller. */
function route(ctx: WebContext, req: IncomingMessage, res: ServerResponse, url: URL, principal: Principal | null): void {
  const name = url.pathname.slice('/api/'.length);
  // A ticket is its own proof; everything else needs a principal.
  if (name === 'download' && req.method === 'GET') return handleDownload(ctx, url, res, principal);
  if (!principal) {
    const why = url.searchParams.has('token') ? 'the token is accepted only in the page URL, never on API calls' : 'missing or wrong token';
    return sendError(res, 'Unauthorized', `${why}: open the URL printed by \`reflection open --web\``);
  }
  if (name === 'events') {
    if (req.method !== 'GET') return sendError(res, 'Invalid', 'events is GET');
    return ctx.events.attach(req, res);
  }
  if (name === 'download') return sendError(res, 'Invalid', 'download is GET');
  const done = (e: unknown) => {
    const env = toEnvelope(e);
    if (!res.headersSent) sendJson(res, STATUS[env.error.kind], env);
    else res.end();
  };
  if (name === 'download-ticket') return void handleTicketRequest(ctx, req, res, principal).catch(done);
  // The call runs as the request's curator: reviews, PII decisions, rollbacks and exports record who.
  runAsPrincipal(principal, () => handleApiCall(ctx, req, res, name)).catch(done);
}
