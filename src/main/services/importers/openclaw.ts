// Imports OpenClaw session transcripts: the active branch of each entry tree becomes turns
// (a user message and everything the assistant did until its reply), with tool calls, usage,
// failed attempts, compactions and untrusted-metadata envelopes kept as metadata.
import fs from 'node:fs';
import path from 'node:path';
import { nowOf, type ServiceContext } from '../context';
import { EntryTable, type Branch } from './branch';
import { startPoint } from './cursors';
import { isObj, obj, optStr, str } from './fields';
import { finishImport } from './finish';
import { serialized } from './serialize';
import { parseTime, sourceUlid } from './ids';
import { parseJsonObject, readLines } from './lines';
import { discoverOpenClaw, entryForTranscript, sessionRowFor, transcriptBaseName } from './openclawSessions';
import { stripReplyTags, stripUserEnvelope } from './openclawText';
import { ReportBuilder, type ImportReport } from './report';
import { ImportStore } from './store';
import { importJsonLines, skipLine } from './stream';

export interface OpenClawInput {
  /** An OpenClaw state dir (holding agents/<id>/sessions), a sessions dir, or one transcript file. */
  source: string;
  maxLineBytes?: number;
}

type Obj = Record<string, unknown>;
type Snapshot = { role: 'user' | 'agent'; message: string; timestamp: number };

interface OpenTurn {
  id: string;
  userEntryIds: string[];
  userText: string;
  userAt: number;
  userMeta: Obj;
  userMessageId: string | null;
  userFrom: string | null;
  failedAttempts: Obj[];
  agentTexts: string[];
  agentEntryIds: string[];
  agentAt: number | null;
  toolCalls: Obj[];
  toolResults: Obj[];
  agent: Obj;
}

/** What a transcript's next run needs: the open turn, the rolling context and the branch tip. */
interface TranscriptState {
  tip: string | null;
  open: OpenTurn | null;
  window: Snapshot[];
  model: string | null;
  marks: Obj[];
  /** The transcript header's session id, which names the session when sessions.json does not. */
  headerId?: string;
}

const WINDOW = 10;
const MAX_TEXT_IN_METADATA = 4000;
const KNOWN_TYPES = new Set(['session', 'message', 'model_change', 'thinking_level_change', 'compaction', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info']);
const NOT_MODEL_TURNS = new Set(['delivery-mirror', 'gateway-injected']);
const FAST_HEAD = /^\{"type":"(\w+)","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")/;

const cap = (text: string) => (text.length > MAX_TEXT_IN_METADATA ? { text: text.slice(0, MAX_TEXT_IN_METADATA), truncatedFrom: text.length } : { text });

function textBlocks(content: unknown, where: string): { texts: string[]; others: Obj[] } {
  if (typeof content === 'string') return { texts: [content], others: [] };
  if (!Array.isArray(content)) skipLine(`${where}content: expected a string or an array of blocks`);
  const texts: string[] = [];
  const others: Obj[] = [];
  for (const b of content as unknown[]) {
    if (!isObj(b)) skipLine(`${where}content: a block is not an object`);
    const block = b as Obj;
    if (block.type === 'text') texts.push(str(block, 'text', `${where}content.`));
    else others.push(block);
  }
  return { texts, others };
}

/**
 * The active branch: from the last entry up to the root through parentId. A parent that is not in
 * the file (excerpts, lost lines) continues with the entry just before in file order, so a gap
 * does not cut the conversation. Returns the line numbers on the branch, or 'rescan' when an
 * incremental read branches off somewhere before what it read.
 */
async function activeBranch(file: string, from: { offset: number; line: number }, end: number, tip: string | null, maxLineBytes?: number): Promise<Branch | 'rescan'> {
  const table = new EntryTable(from.line);
  for await (const line of readLines(file, { start: from.offset, startLine: from.line, end, maxLineBytes })) {
    if (line.text === undefined) continue;
    let type: string | undefined;
    let id: string | undefined;
    let parent: string | null = null;
    const m = FAST_HEAD.exec(line.text);
    if (m) {
      type = m[1];
      id = m[2];
      parent = m[3] ?? null;
    } else {
      const p = parseJsonObject(line.text);
      if ('error' in p) continue;
      type = typeof p.value.type === 'string' ? p.value.type : undefined;
      id = typeof p.value.id === 'string' ? p.value.id : undefined;
      parent = typeof p.value.parentId === 'string' ? p.value.parentId : null;
    }
    if (!id || type === 'session') continue;
    table.add(id, parent, line.lineNumber);
  }
  return table.activeBranch(tip);
}

export function importOpenClaw(ctx: ServiceContext, input: OpenClawInput): Promise<ImportReport> {
  return serialized(ctx.db, 'openclaw', () => run(ctx, input));
}

async function run(ctx: ServiceContext, input: OpenClawInput): Promise<ImportReport> {
  const report = new ReportBuilder('openclaw', input.source, nowOf(ctx));
  const src = discoverOpenClaw(input.source, report);
  const store = new ImportStore(ctx.db, report);
  const now = nowOf(ctx);
  const total = src.transcripts.reduce((n, f) => n + fs.statSync(f).size, 0);
  const progress = { done: 0, total, label: 'reading OpenClaw transcripts' };
  if (!src.transcripts.length && !src.entries.length) report.note(`No OpenClaw transcripts or sessions.json were found at ${input.source}.`);

  // Sessions listed in sessions.json exist even when their transcript is gone.
  const described = new Set<string>();
  ctx.db.transaction(() => {
    for (const e of src.entries) {
      const row = sessionRowFor(ctx.db, e, e.sessionId, e.startedAt ?? e.updatedAt ?? now, now);
      store.upsertSession(row);
      described.add(row.id);
    }
  }).immediate();

  const sameTurn = ctx.db.prepare(
    'SELECT id FROM conversation_turns WHERE session_id = ? AND created_at BETWEEN ? AND ? AND user_message_content = ? LIMIT 1',
  ).pluck();

  for (const file of src.transcripts) {
    if (ctx.signal?.aborted) break;
    const entry = entryForTranscript(src, file);
    const fallbackId = transcriptBaseName(file).replace(/\.jsonl$/, '');
    let sp = startPoint(ctx.db, 'openclaw', file);
    let state: TranscriptState = { tip: null, open: null, window: [], model: null, marks: [] };
    if (!sp.restarted && sp.state) state = sp.state as TranscriptState;
    let active = await activeBranch(file, sp, sp.size, sp.offset > 0 ? state.tip : null, input.maxLineBytes);
    if (active === 'rescan') {
      report.note(`${path.basename(file)} continued on another branch; it was read again from the start.`);
      sp = { ...sp, offset: 0, line: 0, state: null };
      state = { tip: null, open: null, window: [], model: null, marks: [] };
      active = (await activeBranch(file, sp, sp.size, null, input.maxLineBytes)) as Branch;
    }
    const branch = active;
    let sessionId: string | null = null;
    const transcriptKey = fallbackId;

    const session = (at: number): string => {
      if (!sessionId) {
        const row = sessionRowFor(ctx.db, entry, state.headerId ?? fallbackId, at, now);
        if (!described.has(row.id)) store.upsertSession(row);
        sessionId = row.id;
      }
      return sessionId;
    };

    const emit = () => {
      const t = state.open;
      if (!t) return;
      state.open = null;
      const agentText = t.agentTexts.join('\n\n');
      if (agentText) {
        state.window.push({ role: 'agent', message: agentText, timestamp: t.agentAt ?? t.userAt });
        if (state.window.length > WINDOW) state.window.splice(0, state.window.length - WINDOW);
      }
      const sid = session(t.userAt);
      const createdAt = t.agentAt ?? t.userAt;
      // The plugin's logs may already hold this exchange in the same session: keep one copy.
      if (!store.turnExists(t.id) && sameTurn.get(sid, t.userAt - 60_000, createdAt + 60_000, t.userText)) {
        report.ignore('turns already imported from the plugin logs');
        return;
      }
      const marks = state.marks.splice(0);
      store.insertTurn({
        id: t.id,
        sessionId: sid,
        userMessageId: t.userMessageId,
        userContent: t.userText,
        userFrom: t.userFrom,
        userMetadata: {
          ...t.userMeta,
          entryIds: t.userEntryIds,
          transcript: path.basename(file),
          ...(t.failedAttempts.length ? { failedAttempts: t.failedAttempts } : {}),
          ...(t.userEntryIds.length > 1 ? { resentAfterFailure: t.userEntryIds.length - 1 } : {}),
          ...(marks.length ? { before: marks } : {}),
        },
        agentMessageId: t.agentEntryIds[t.agentEntryIds.length - 1] ?? null,
        agentContent: agentText,
        agentMetadata: {
          ...t.agent,
          entryIds: t.agentEntryIds,
          ...(t.toolCalls.length ? { toolCalls: t.toolCalls } : {}),
          ...(t.toolResults.length ? { toolResults: t.toolResults } : {}),
          ...(t.agentEntryIds.length === 0 ? { noReply: true } : {}),
        },
        createdAt,
        context: state.window.map((w) => ({ ...w })),
      });
    };

    const startTurn = (entryId: string, at: number, text: string, meta: Obj, messageId: string | null, from: string | null) => {
      state.open = {
        id: sourceUlid(at, 'openclaw', transcriptKey, entryId),
        userEntryIds: [entryId],
        userText: text,
        userAt: at,
        userMeta: meta,
        userMessageId: messageId,
        userFrom: from,
        failedAttempts: [],
        agentTexts: [],
        agentEntryIds: [],
        agentAt: null,
        toolCalls: [],
        toolResults: [],
        agent: {},
      };
      if (text) {
        state.window.push({ role: 'user', message: text, timestamp: at });
        if (state.window.length > WINDOW) state.window.splice(0, state.window.length - WINDOW);
      }
    };

    const onMessage = (e: Obj, id: string, at: number) => {
      const m = obj(e, 'message');
      const role = str(m, 'role', 'message.');
      if (role === 'user') {
        const { texts, others } = textBlocks(m.content, 'message.');
        const env = stripUserEnvelope(texts.join('\n'));
        const open = state.open;
        // A failed attempt is often followed by the same text sent again: one turn, not two.
        if (open && open.agentEntryIds.length === 0 && open.toolCalls.length === 0 && open.userText === env.text) {
          open.userEntryIds.push(id);
          return;
        }
        emit();
        const info = isObj(env.blocks.conversationInfo) ? env.blocks.conversationInfo : undefined;
        const sender = isObj(env.blocks.sender) ? env.blocks.sender : undefined;
        const meta: Obj = {
          ...(Object.keys(env.blocks).length ? { envelope: env.blocks } : {}),
          ...(env.sentAt ? { sentAt: env.sentAt } : {}),
          ...(others.length ? { attachments: others.map((b) => ({ type: b.type, mimeType: b.mimeType })) } : {}),
        };
        const messageId = info && (typeof info.message_id === 'string' || typeof info.message_id === 'number') ? String(info.message_id) : id;
        const from = (sender && typeof sender.label === 'string' && sender.label) || (info && typeof info.sender === 'string' && info.sender) || null;
        startTurn(id, at, env.text, meta, messageId, from);
        return;
      }
      if (role === 'assistant') {
        const model = optStr(m, 'model', 'message.');
        const provider = optStr(m, 'provider', 'message.');
        if (provider === 'openclaw' && model && NOT_MODEL_TURNS.has(model)) {
          report.ignore(model === 'delivery-mirror' ? 'delivery-mirror replies' : 'gateway-injected replies');
          return;
        }
        const { texts, others } = textBlocks(m.content, 'message.');
        const calls = others.filter((b) => b.type === 'toolCall');
        const stopReason = optStr(m, 'stopReason', 'message.');
        const visible = texts.filter((t) => t.trim() !== '');
        if (stopReason === 'error' && visible.length === 0 && calls.length === 0) {
          report.ignore('failed attempts');
          state.open?.failedAttempts.push({ entryId: id, at, model, provider, error: typeof m.errorMessage === 'string' ? m.errorMessage : null });
          return;
        }
        if (!state.open) startTurn(id, at, '', { noUserMessage: true }, null, null);
        const t = state.open!;
        for (const text of visible) {
          const { text: clean, tags } = stripReplyTags(text);
          t.agentTexts.push(clean);
          if (tags.length) t.agent.replyTags = [...((t.agent.replyTags as string[]) ?? []), ...tags];
        }
        for (const c of calls) {
          const args = JSON.stringify(c.arguments ?? null);
          t.toolCalls.push({ id: c.id, name: c.name, arguments: args.length > MAX_TEXT_IN_METADATA ? { truncated: args.slice(0, MAX_TEXT_IN_METADATA) } : c.arguments });
        }
        t.agentEntryIds.push(id);
        t.agentAt = at;
        t.agent.model = model ?? state.model;
        if (provider) t.agent.provider = provider;
        if (stopReason) t.agent.stopReason = stopReason;
        if (typeof m.responseId === 'string') t.agent.responseId = m.responseId;
        if (isObj(m.usage)) t.agent.usage = addUsage(t.agent.usage as Obj | undefined, m.usage);
        const thinking = others.filter((b) => b.type === 'thinking').length;
        if (thinking) t.agent.thinkingBlocks = ((t.agent.thinkingBlocks as number) ?? 0) + thinking;
        // A reply without tool calls ends the turn; with tool calls, results and more replies follow.
        if (calls.length === 0 && stopReason !== 'toolUse' && visible.length > 0) emit();
        return;
      }
      if (role === 'toolResult') {
        const t = state.open;
        if (!t) {
          report.ignore('tool results outside a turn');
          return;
        }
        const { texts } = Array.isArray(m.content) || typeof m.content === 'string' ? textBlocks(m.content, 'message.') : { texts: [] };
        t.toolResults.push({ toolCallId: m.toolCallId, toolName: m.toolName, isError: m.isError === true, ...cap(texts.join('\n')) });
        return;
      }
      skipLine(`message.role: unknown role ${JSON.stringify(role.slice(0, 30))}`);
    };

    await importJsonLines(
      ctx,
      report,
      {
        importer: 'openclaw',
        file,
        start: sp,
        end: sp.size,
        maxLineBytes: input.maxLineBytes,
        cursorState: () => state,
        handle: (e, line) => {
          const type = str(e, 'type');
          if (!KNOWN_TYPES.has(type)) skipLine(`unknown entry type ${JSON.stringify(type.slice(0, 40))}`);
          if (type === 'session') {
            if (typeof e.id === 'string' && e.id) state.headerId ??= e.id;
            return;
          }
          const id = str(e, 'id');
          if (e.parentId !== null && e.parentId !== undefined && typeof e.parentId !== 'string') skipLine('parentId: expected a string or null');
          if (!branch.has(line.lineNumber)) {
            report.ignore('entries on abandoned branches');
            return;
          }
          state.tip = id;
          const at = parseTime(e.timestamp) ?? (isObj(e.message) ? parseTime(e.message.timestamp) : undefined) ?? skipLine('timestamp: missing or not a valid time');
          switch (type) {
            case 'message':
              return onMessage(e, id, at);
            case 'model_change':
              state.model = [optStr(e, 'provider'), optStr(e, 'modelId')].filter(Boolean).join('/') || state.model;
              return;
            case 'custom':
              if (e.customType === 'model-snapshot' && isObj(e.data) && typeof e.data.modelId === 'string') {
                state.model = [e.data.provider, e.data.modelId].filter((x) => typeof x === 'string').join('/');
              }
              return;
            case 'compaction':
              report.ignore('compactions marked');
              state.marks.push({ kind: 'compaction', entryId: id, at, tokensBefore: e.tokensBefore, firstKeptEntryId: e.firstKeptEntryId, ...cap(typeof e.summary === 'string' ? e.summary : '') });
              return;
            case 'branch_summary':
              state.marks.push({ kind: 'branch_summary', entryId: id, at, ...cap(typeof e.summary === 'string' ? e.summary : '') });
              return;
            case 'session_info':
              if (typeof e.name === 'string') store.upsertSession({ ...sessionRowFor(ctx.db, entry, state.headerId ?? fallbackId, at, now), metadata: { openclaw: { name: e.name } } });
              return;
            default:
              return;
          }
        },
      },
      { progress },
    );
    if (state.open) report.note(`${path.basename(file)}: the last turn has no reply yet; it is kept for the next import.`);
  }
  return finishImport(ctx, report);
}

function addUsage(sum: Obj | undefined, u: Obj): Obj {
  const out: Obj = { ...(sum ?? {}) };
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens']) {
    if (typeof u[k] === 'number') out[k] = ((out[k] as number) ?? 0) + (u[k] as number);
  }
  const cost = isObj(u.cost) && typeof u.cost.total === 'number' ? u.cost.total : undefined;
  if (cost !== undefined) out.costTotal = ((out.costTotal as number) ?? 0) + cost;
  return out;
}
