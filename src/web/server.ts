// Browser mode: the same handler registry over HTTP on 127.0.0.1 only. Serves the built renderer,
// POST /api/<channel>, GET /api/events (server-sent change events) and GET /api/download (export
// files the workbench wrote, through one-use tickets). Who may call is decided in auth.ts: the URL
// token is exchanged once for a cookie; API clients may send it in a header; never in an API query.
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { contracts, isChannel, isDryRun, type ChangeEvent } from '../shared/contract';
import type { ErrorKind, Result } from '../shared/errors';
import { downloadNameOf, resolveExportFile } from '../api/exportFiles';
import type { AppRuntime } from '../api/runtime';
import { toEnvelope } from '../api/errors';
import { singleTokenAuth, WebAuth, type Authenticate, type Principal } from './auth';
import { IdempotencyStore } from './idempotency';
import { applySecurityHeaders, DEFAULT_RATE_LIMIT, hostAllowed, newToken, originAllowed, RateLimiter, type RateLimitOptions } from './security';
import { runAsPrincipal, withCuratorTokens } from '../core/curation/webPrincipal';

export const TOKEN_HEADER = 'x-reflection-token';
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** A body this far over the limit is not drained to answer politely: the connection is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
const ANONYMOUS_BUCKET = 'anonymous';

const STATUS: Record<ErrorKind, number> = {
  NotFound: 404, Conflict: 409, Invalid: 400, Locked: 423, Io: 500, Cancelled: 499, Internal: 500, RateLimited: 429, Unauthorized: 401,
};

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.map': 'application/json',
};

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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, kind: ErrorKind, message: string, extra: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  sendJson(res, STATUS[kind], { ok: false, error: { kind, message } });
}

class BodyTooLarge extends Error {
  constructor() {
    super(`request body is larger than ${MAX_BODY_BYTES / (1024 * 1024)} MB`);
  }
}

/** Reads the body; past MAX_BODY_BYTES it keeps draining (so the client reads a 413, not a reset) and then rejects. */
function readBody(req: IncomingMessage): Promise<string> {
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

function sendTooLarge(res: ServerResponse, message: string): void {
  res.setHeader('Connection', 'close');
  sendJson(res, 413, { ok: false, error: { kind: 'Invalid', message } });
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const { runtime } = opts;
  const token = opts.token ?? newToken();
  // Curators' own tokens (reflection curator add) are valid beside the owner's session token.
  const auth = new WebAuth(opts.authenticate ?? withCuratorTokens(singleTokenAuth(token), () => runtime.session.db));
  const limiter = new RateLimiter(opts.rateLimit ?? DEFAULT_RATE_LIMIT);
  const idempotency = new IdempotencyStore(() => runtime.session.db);
  const rendererDir = path.resolve(opts.rendererDir);
  const sseClients = new Set<ServerResponse>();
  let port = 0;

  const unsubscribe = runtime.session.onChange((event: ChangeEvent) => {
    const frame = `data: ${JSON.stringify(event)}\n\n`;
    for (const res of sseClients) res.write(frame);
  });
  const heartbeat = setInterval(() => {
    for (const res of sseClients) res.write(': keep-alive\n\n');
  }, 15_000);
  heartbeat.unref();

  async function handleApiCall(req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
    if (req.method !== 'POST') return sendError(res, 'Invalid', 'API calls are POST', { Allow: 'POST' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendError(res, 'Invalid', 'Content-Type must be application/json');
    }
    let input: unknown;
    let body: string;
    try {
      body = await readBody(req);
    } catch (e) {
      if (e instanceof BodyTooLarge) return sendTooLarge(res, e.message);
      return sendError(res, 'Invalid', (e as Error).message);
    }
    try {
      input = body.trim() === '' ? {} : JSON.parse(body);
    } catch {
      return sendError(res, 'Invalid', 'request body is not valid JSON');
    }
    const key = req.headers[IDEMPOTENCY_HEADER];
    let result: Result<unknown>;
    // A dry run is a read: it stores no idempotency row (a repeat just previews again).
    if (typeof key === 'string' && key.length > 0 && isChannel(channel) && contracts[channel].mutating && !isDryRun(input) && runtime.session.isOpen()) {
      if (key.length > 200) return sendError(res, 'Invalid', 'Idempotency-Key is too long');
      const r = await idempotency.run(channel, key, body, () => runtime.registry.dispatch(channel, input));
      result = r.result;
      if (r.replayed) res.setHeader('Idempotent-Replayed', 'true');
    } else {
      result = await runtime.registry.dispatch(channel, input);
    }
    sendJson(res, result.ok ? 200 : STATUS[result.error.kind], result);
  }

  function handleEvents(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    sseClients.add(res);
    req.on('close', () => sseClients.delete(res));
  }

  function sendFile(res: ServerResponse, exportId: string, fileName: string): void {
    let file: string;
    try {
      file = resolveExportFile(runtime.session.db, runtime.session.dir, exportId, fileName);
    } catch (e) {
      const env = toEnvelope(e);
      return sendError(res, env.error.kind, env.error.message);
    }
    const stat = fs.statSync(file);
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': stat.size,
      'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(downloadNameOf(runtime.session.db, exportId, path.basename(file)))}`,
      'Cache-Control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  }

  /** Checks the export file exists before handing out a ticket for it, so errors surface at once. */
  function ticketFor(principal: Principal, exportId: string, fileName: string): { url: string; expiresAt: number } {
    resolveExportFile(runtime.session.db, runtime.session.dir, exportId, fileName);
    const t = auth.issueTicket(principal, exportId, fileName);
    return { url: `/api/download?ticket=${t.ticket}`, expiresAt: t.expiresAt };
  }

  /**
   * GET /api/download?ticket=: the file, once. GET /api/download?exportId=&file= (a link in the page,
   * sent with the session cookie): a fresh ticket and a redirect to it, so links carry no credential.
   */
  function handleDownload(url: URL, res: ServerResponse, principal: Principal | null): void {
    const ticket = url.searchParams.get('ticket');
    if (ticket) {
      const t = auth.redeemTicket(ticket);
      if (!t) return sendError(res, 'Unauthorized', 'download ticket unknown, used or expired: download again from the workbench');
      return sendFile(res, t.exportId, t.file);
    }
    if (!principal) return sendError(res, 'Unauthorized', 'downloads need a ticket or the workbench session');
    try {
      const { url: target } = ticketFor(principal, url.searchParams.get('exportId') ?? '', url.searchParams.get('file') ?? '');
      res.writeHead(303, { Location: target, 'Cache-Control': 'no-store' });
      res.end();
    } catch (e) {
      const env = toEnvelope(e);
      sendError(res, env.error.kind, env.error.message);
    }
  }

  async function handleTicketRequest(req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
    if (req.method !== 'POST') return sendError(res, 'Invalid', 'download-ticket is POST', { Allow: 'POST' });
    let input: { exportId?: unknown; file?: unknown };
    try {
      input = JSON.parse((await readBody(req)) || '{}') as typeof input;
    } catch {
      return sendError(res, 'Invalid', 'request body is not valid JSON');
    }
    if (typeof input.exportId !== 'string' || typeof input.file !== 'string') return sendError(res, 'Invalid', 'exportId and file are required strings');
    try {
      sendJson(res, 200, { ok: true, value: ticketFor(principal, input.exportId, input.file) });
    } catch (e) {
      const env = toEnvelope(e);
      sendError(res, env.error.kind, env.error.message);
    }
  }

  /** The one place the URL token is accepted: exchanged for the session cookie, then a redirect to the clean URL. */
  function exchangeToken(url: URL, res: ServerResponse): void {
    if (limiter.take(ANONYMOUS_BUCKET) > 0) return sendError(res, 'RateLimited', 'too many requests', { 'Retry-After': '1' });
    const cookie = auth.exchange(url.searchParams.get('token') ?? '');
    if (!cookie) return sendError(res, 'Unauthorized', 'wrong or expired token (tokens change on every start): use the URL printed by `reflection open --web`');
    url.searchParams.delete('token');
    // Never '//host/...' (a path like '/\\evil.example' parses to that): the redirect stays on this origin.
    const clean = `${url.pathname.replace(/^\/+/, '/')}${url.search}`;
    res.writeHead(303, { 'Set-Cookie': auth.setCookieHeader(port, cookie), Location: clean, 'Cache-Control': 'no-store' });
    res.end();
  }

  function serveStatic(url: URL, req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 'Invalid', 'method not allowed');
    if (url.searchParams.has('token')) return exchangeToken(url, res);
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      return sendError(res, 'Invalid', 'bad path');
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = path.resolve(rendererDir, `.${rel}`);
    if (!file.startsWith(rendererDir + path.sep)) return sendError(res, 'NotFound', 'not found');
    let target = file;
    if (!fs.existsSync(target) || !fs.statSync(target).isFile()) {
      // Client-side routes fall back to the app shell; missing assets stay 404.
      if (path.extname(rel)) return sendError(res, 'NotFound', 'not found');
      target = path.join(rendererDir, 'index.html');
      if (!fs.existsSync(target)) return sendError(res, 'NotFound', 'the renderer is not built: run `npm run build`');
    }
    const stat = fs.statSync(target);
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(target)] ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Cache-Control': path.basename(target) === 'index.html' ? 'no-store' : 'public, max-age=3600',
    });
    if (req.method === 'HEAD') return void res.end();
    fs.createReadStream(target).pipe(res);
  }

  function route(req: IncomingMessage, res: ServerResponse, url: URL, principal: Principal | null): void {
    const name = url.pathname.slice('/api/'.length);
    // A ticket is its own proof; everything else needs a principal.
    if (name === 'download' && req.method === 'GET') return handleDownload(url, res, principal);
    if (!principal) {
      const why = url.searchParams.has('token') ? 'the token is accepted only in the page URL, never on API calls' : 'missing or wrong token';
      return sendError(res, 'Unauthorized', `${why}: open the URL printed by \`reflection open --web\``);
    }
    if (name === 'events') {
      if (req.method !== 'GET') return sendError(res, 'Invalid', 'events is GET');
      return handleEvents(req, res);
    }
    if (name === 'download') return sendError(res, 'Invalid', 'download is GET');
    const done = (e: unknown) => {
      const env = toEnvelope(e);
      if (!res.headersSent) sendJson(res, STATUS[env.error.kind], env);
      else res.end();
    };
    if (name === 'download-ticket') return void handleTicketRequest(req, res, principal).catch(done);
    // The call runs as the request's curator: reviews, PII decisions, rollbacks and exports record who.
    runAsPrincipal(principal, () => handleApiCall(req, res, name)).catch(done);
  }

  const server = http.createServer((req, res) => {
    applySecurityHeaders(res);
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
    if (!hostAllowed(req, port)) return sendError(res, 'Unauthorized', 'Host not allowed');
    if (!originAllowed(req, port)) return sendError(res, 'Unauthorized', 'cross-origin requests are not allowed');
    const fetchSite = req.headers['sec-fetch-site'];
    if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return sendError(res, 'Unauthorized', 'cross-site requests are not allowed');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (!url.pathname.startsWith('/api/')) return serveStatic(url, req, res);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      return sendTooLarge(res, `request body is larger than ${MAX_BODY_BYTES / (1024 * 1024)} MB`);
    }
    const principal = auth.principalOf(req, port, TOKEN_HEADER);
    // Buckets by principal, one shared bucket for everything unauthenticated (token guessing included).
    const wait = limiter.take(principal ? `principal:${principal.id}` : ANONYMOUS_BUCKET);
    if (wait > 0) return sendError(res, 'RateLimited', 'too many requests', { 'Retry-After': String(Math.max(1, Math.ceil(wait))) });
    route(req, res, url, principal);
  });

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
        clearInterval(heartbeat);
        for (const res of sseClients) res.end();
        sseClients.clear();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
