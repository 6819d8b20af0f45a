// The built renderer over GET, and the one place the URL token is exchanged for the session cookie.
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ANONYMOUS_BUCKET, sendError, type WebContext } from './http';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
};

/** The URL token, exchanged for the session cookie, then a redirect to the clean URL. */
function exchangeToken(ctx: WebContext, url: URL, res: ServerResponse): void {
  if (ctx.limiter.take(ANONYMOUS_BUCKET) > 0) return sendError(res, 'RateLimited', 'too many requests', { 'Retry-After': '1' });
  const cookie = ctx.auth.exchange(url.searchParams.get('token') ?? '');
  if (!cookie)
    return sendError(
      res,
      'Unauthorized',
      'wrong or expired token (tokens change on every start): use the URL printed by `reflection open --web`',
    );
  url.searchParams.delete('token');
  // Never '//host/...' (a path like '/\\evil.example' parses to that): the redirect stays on this origin.
  const clean = `${url.pathname.replace(/^\/+/, '/')}${url.search}`;
  res.writeHead(303, { 'Set-Cookie': ctx.auth.setCookieHeader(ctx.port(), cookie), Location: clean, 'Cache-Control': 'no-store' });
  res.end();
}

/** The file under the renderer folder a path names; client-side routes get the app shell. Null after an error answer. */
function staticTarget(rendererDir: string, url: URL, res: ServerResponse): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    sendError(res, 'Invalid', 'bad path');
    return null;
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  const file = path.resolve(rendererDir, `.${rel}`);
  if (!file.startsWith(rendererDir + path.sep)) {
    sendError(res, 'NotFound', 'not found');
    return null;
  }
  if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  // Client-side routes fall back to the app shell; missing assets stay 404.
  if (path.extname(rel)) {
    sendError(res, 'NotFound', 'not found');
    return null;
  }
  const shell = path.join(rendererDir, 'index.html');
  if (fs.existsSync(shell)) return shell;
  sendError(res, 'NotFound', 'the renderer is not built: run `npm run build`');
  return null;
}

export function serveStatic(ctx: WebContext, url: URL, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 'Invalid', 'method not allowed');
  if (url.searchParams.has('token')) return exchangeToken(ctx, url, res);
  const target = staticTarget(ctx.rendererDir, url, res);
  if (!target) return;
  const stat = fs.statSync(target);
  res.writeHead(200, {
    'Content-Type': MIME[path.extname(target)] ?? 'application/octet-stream',
    'Content-Length': stat.size,
    'Cache-Control': path.basename(target) === 'index.html' ? 'no-store' : 'public, max-age=3600',
  });
  if (req.method === 'HEAD') return void res.end();
  fs.createReadStream(target).pipe(res);
}
