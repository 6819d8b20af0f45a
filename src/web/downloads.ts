// Export files the workbench wrote, handed out through one-use tickets so links carry no credential.
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { downloadNameOf, resolveExportFile } from '../api/exportFiles';
import type { Principal } from './auth';
import { readBody, sendError, sendJson, sendThrown, type WebContext } from './http';

function sendFile(ctx: WebContext, res: ServerResponse, exportId: string, fileName: string): void {
  const { session } = ctx.runtime;
  let file: string;
  try {
    file = resolveExportFile(session.db, session.dir, exportId, fileName);
  } catch (e) {
    return sendThrown(res, e);
  }
  const stat = fs.statSync(file);
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': stat.size,
    'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(downloadNameOf(session.db, exportId, path.basename(file)))}`,
    'Cache-Control': 'no-store',
  });
  fs.createReadStream(file).pipe(res);
}

/** Checks the export file exists before handing out a ticket for it, so errors surface at once. */
function ticketFor(ctx: WebContext, principal: Principal, exportId: string, fileName: string): { url: string; expiresAt: number } {
  resolveExportFile(ctx.runtime.session.db, ctx.runtime.session.dir, exportId, fileName);
  const t = ctx.auth.issueTicket(principal, exportId, fileName);
  return { url: `/api/download?ticket=${t.ticket}`, expiresAt: t.expiresAt };
}

/**
 * GET /api/download?ticket=: the file, once. GET /api/download?exportId=&file= (a link in the page,
 * sent with the session cookie): a fresh ticket and a redirect to it, so links carry no credential.
 */
export function handleDownload(ctx: WebContext, url: URL, res: ServerResponse, principal: Principal | null): void {
  const ticket = url.searchParams.get('ticket');
  if (ticket) {
    const t = ctx.auth.redeemTicket(ticket);
    if (!t) return sendError(res, 'Unauthorized', 'download ticket unknown, used or expired: download again from the workbench');
    return sendFile(ctx, res, t.exportId, t.file);
  }
  if (!principal) return sendError(res, 'Unauthorized', 'downloads need a ticket or the workbench session');
  try {
    const { url: target } = ticketFor(ctx, principal, url.searchParams.get('exportId') ?? '', url.searchParams.get('file') ?? '');
    res.writeHead(303, { Location: target, 'Cache-Control': 'no-store' });
    res.end();
  } catch (e) {
    sendThrown(res, e);
  }
}

/** POST /api/download-ticket: a ticket for one export file, for clients that fetch it themselves. */
export async function handleTicketRequest(ctx: WebContext, req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
  if (req.method !== 'POST') return sendError(res, 'Invalid', 'download-ticket is POST', { Allow: 'POST' });
  let input: { exportId?: unknown; file?: unknown };
  try {
    input = JSON.parse((await readBody(req)) || '{}') as typeof input;
  } catch {
    return sendError(res, 'Invalid', 'request body is not valid JSON');
  }
  if (typeof input.exportId !== 'string' || typeof input.file !== 'string')
    return sendError(res, 'Invalid', 'exportId and file are required strings');
  try {
    sendJson(res, 200, { ok: true, value: ticketFor(ctx, principal, input.exportId, input.file) });
  } catch (e) {
    sendThrown(res, e);
  }
}
