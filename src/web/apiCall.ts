// POST /api/<channel>: one call into the handler registry, with Idempotency-Key replay for mutations.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contracts, isChannel, isDryRun } from '../shared/contract';
import type { Result } from '../shared/errors';
import { BodyTooLarge, readBody, sendError, sendJson, sendTooLarge, STATUS, type WebContext } from './http';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The request's JSON body (empty means `{}`), or null after an error answer was sent. */
async function readJsonInput(req: IncomingMessage, res: ServerResponse): Promise<{ body: string; input: unknown } | null> {
  let body: string;
  try {
    body = await readBody(req);
  } catch (e) {
    if (e instanceof BodyTooLarge) sendTooLarge(res, e.message);
    else sendError(res, 'Invalid', (e as Error).message);
    return null;
  }
  try {
    return { body, input: body.trim() === '' ? {} : JSON.parse(body) };
  } catch {
    sendError(res, 'Invalid', 'request body is not valid JSON');
    return null;
  }
}

export async function handleApiCall(ctx: WebContext, req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
  if (req.method !== 'POST') return sendError(res, 'Invalid', 'API calls are POST', { Allow: 'POST' });
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
    return sendError(res, 'Invalid', 'Content-Type must be application/json');
  }
  const read = await readJsonInput(req, res);
  if (!read) return;
  const { body, input } = read;
  const { runtime } = ctx;
  const key = req.headers[IDEMPOTENCY_HEADER];
  let result: Result<unknown>;
  // A dry run is a read: it stores no idempotency row (a repeat just previews again).
  if (
    typeof key === 'string' &&
    key.length > 0 &&
    isChannel(channel) &&
    contracts[channel].mutating &&
    !isDryRun(input) &&
    runtime.session.isOpen()
  ) {
    if (key.length > 200) return sendError(res, 'Invalid', 'Idempotency-Key is too long');
    const r = await ctx.idempotency.run(channel, key, body, () => runtime.registry.dispatch(channel, input));
    result = r.result;
    if (r.replayed) res.setHeader('Idempotent-Replayed', 'true');
  } else {
    result = await runtime.registry.dispatch(channel, input);
  }
  sendJson(res, result.ok ? 200 : STATUS[result.error.kind], result);
}
