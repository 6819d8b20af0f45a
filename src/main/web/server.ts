// Browser mode: the same handler registry over HTTP on 127.0.0.1 only. Serves the built renderer,
// POST /api/<channel>, GET /api/events (server-sent change events) and GET /api/download (export
// files the workbench wrote). Every API request needs the session token printed in the URL.
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { contracts, isChannel, isDryRun, type ChangeEvent } from '../../shared/contract';
import type { ErrorKind, Result } from '../../shared/errors';
import { resolveExportFile } from '../app/exportFiles';
import type { AppRuntime } from '../app/runtime';
import { toEnvelope } from '../ipc/errors';
import { IdempotencyStore } from './idempotency';
import {
  applySecurityHeaders,
  DEFAULT_RATE_LIMIT,
  hostAllowed,
  newToken,
  originAllowed,
  RateLimiter,
  tokensEqual,
  type RateLimitOptions,
} from './security';

export const TOKEN_HEADER = 'x-reflection-token';
export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const STATUS: Record<ErrorKind, number> = {
  NotFound: 404, Conflict: 409, Invalid: 400, Locked: 423, Io: 500, Internal: 500, RateLimited: 429, Unauthorized: 401,
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
  token?: string;
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('request body too large'), { kind: 'Invalid' }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const { runtime } = opts;
  const token = opts.token ?? newToken();
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
    let body: string;
    try {
      body = await readBody(req);
    } catch (e) {
      return sendError(res, 'Invalid', (e as Error).message);
    }
    let input: unknown;
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

  function handleDownload(url: URL, res: ServerResponse): void {
    const exportId = url.searchParams.get('exportId') ?? '';
    const fileName = url.searchParams.get('file') ?? '';
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
      'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(path.basename(file))}`,
      'Cache-Control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  }

  function serveStatic(url: URL, req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 'Invalid', 'method not allowed');
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

  const server = http.createServer((req, res) => {
    applySecurityHeaders(res);
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
    if (!hostAllowed(req, port)) return sendError(res, 'Unauthorized', 'Host not allowed');
    if (!originAllowed(req, port)) return sendError(res, 'Unauthorized', 'cross-origin requests are not allowed');
    const fetchSite = req.headers['sec-fetch-site'];
    if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return sendError(res, 'Unauthorized', 'cross-site requests are not allowed');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (!url.pathname.startsWith('/api/')) return serveStatic(url, req, res);

    const given = (req.headers[TOKEN_HEADER] as string | undefined) ?? url.searchParams.get('token');
    // Unauthenticated clients share one bucket per address, so token guessing is rate limited too.
    const clientKey = `${req.socket.remoteAddress}|${tokensEqual(token, given) ? 'session' : 'anonymous'}`;
    const wait = limiter.take(clientKey);
    if (wait > 0) return sendError(res, 'RateLimited', 'too many requests', { 'Retry-After': String(Math.max(1, Math.ceil(wait))) });
    if (!tokensEqual(token, given)) return sendError(res, 'Unauthorized', 'missing or wrong token: use the URL printed by `reflection open --web`');

    const route = url.pathname.slice('/api/'.length);
    if (route === 'events') {
      if (req.method !== 'GET') return sendError(res, 'Invalid', 'events is GET');
      return handleEvents(req, res);
    }
    if (route === 'download') {
      if (req.method !== 'GET') return sendError(res, 'Invalid', 'download is GET');
      return handleDownload(url, res);
    }
    handleApiCall(req, res, route).catch((e) => {
      const env = toEnvelope(e);
      if (!res.headersSent) sendJson(res, STATUS[env.error.kind], env);
      else res.end();
    });
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
