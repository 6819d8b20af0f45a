// One OpenClaw transcript turned into turns: the active branch of its entry tree, each user message
// and everything the assistant did until its reply, with tool calls, usage, failed attempts,
// compactions, resets and untrusted-metadata envelopes kept as metadata. The entries come from a
// JSONL file, a decompressed archive or rows of OpenClaw's SQLite store: the same code reads all.
import type { ServiceContext } from '../context';
import { EntryTable, type Branch } from './branch';
import { isObj, obj, optStr, str, type Obj } from './fields';
import { parseTime, sourceUlid } from './ids';
import { isUtf8 } from 'node:buffer';
import { decode, parseJsonObject, type SourceLine } from './lines';
import { sessionRowFor, type OpenClawSessionEntry } from './openclawSessions';
import { stripReplyTags, stripUserEnvelope } from './openclawText';
import type { ReportBuilder } from './report';
import type { ContextSnapshot, ImportStore } from './store';
import { skipLine } from './stream';

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
export interface TranscriptState {
  tip: string | null;
  open: OpenTurn | null;
  window: ContextSnapshot[];
  model: string | null;
  marks: Obj[];
  /** The transcript header's session id, which names the session when no session entry does. */
  headerId?: string;
}

export const newTranscriptState = (): TranscriptState => ({ tip: null, open: null, window: [], model: null, marks: [] });

/** Where a transcript belongs: its session entry (if known) and the key its turn ids derive from. */
export interface TranscriptTarget {
  entry: OpenClawSessionEntry | undefined;
  /** The session id the transcript is named after; turn ids derive from it, so copies of one entry meet. */
  transcriptKey: string;
  /** Shown in the turn's metadata: the file, archive or database row range it came from. */
  sourceName: string;
}

/** Shared by every transcript of one run. */
export interface TranscriptRun {
  ctx: ServiceContext;
  store: ImportStore;
  report: ReportBuilder;
  now: number;
  /** Sessions already written from their session entry in this run. */
  described: Set<string>;
}

const WINDOW = 10;
const MAX_TEXT_IN_METADATA = 4000;
const KNOWN_TYPES = new Set([
  'session',
  'message',
  'model_change',
  'thinking_level_change',
  'compaction',
  'reset',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
]);
const NOT_MODEL_TURNS = new Set(['delivery-mirror', 'gateway-injected']);
const FAST_HEAD = /^\{"type":"(\w+)","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")/;

const cap = (text: string) =>
  text.length > MAX_TEXT_IN_METADATA ? { text: text.slice(0, MAX_TEXT_IN_METADATA), truncatedFrom: text.length } : { text };

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

export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type EntryHead = { type?: string; id?: string; parent: string | null };

/** One entry's place in the tree, read cheaply (a regex on the usual key order, JSON otherwise). */
export function entryHead(text: string): EntryHead | undefined {
  const m = FAST_HEAD.exec(text);
  if (m) return { type: m[1], id: m[2], parent: m[3] ?? null };
  const p = parseJsonObject(text);
  if ('error' in p) return undefined;
  const v = p.value;
  return {
    type: typeof v.type === 'string' ? v.type : undefined,
    id: typeof v.id === 'string' ? v.id : undefined,
    parent: typeof v.parentId === 'string' ? v.parentId : null,
  };
}

/** Bytes enough to hold type, id and parentId in OpenClaw's key order: the usual ids fit the first, long ones the second. */
const SHORT_HEAD_BYTES = 128;
const HEAD_BYTES = 512;

/**
 * entryHead of a line still in bytes: the usual key order is matched on its first bytes, so the rest is
 * neither copied nor decoded. A line that is not valid UTF-8 has no head, as when it is decoded whole.
 */
export function entryHeadOfBytes(bytes: Buffer): EntryHead | undefined {
  if (!isUtf8(bytes)) return undefined;
  // A multi-byte character cut at the end of the prefix cannot be inside a match: the match ends on a quote.
  // A match in a shorter prefix is the match in a longer one: it is anchored and ends on a quote or null.
  const m =
    FAST_HEAD.exec(bytes.toString('utf8', 0, Math.min(bytes.length, SHORT_HEAD_BYTES))) ??
    (bytes.length > SHORT_HEAD_BYTES ? FAST_HEAD.exec(bytes.toString('utf8', 0, Math.min(bytes.length, HEAD_BYTES))) : null);
  if (m) return { type: m[1], id: m[2], parent: m[3] ?? null };
  const text = decode(bytes);
  return text === undefined ? undefined : entryHead(text);
}

/** An entry as the branch scan sees it: its text (undefined: not an entry). A file's lines go to scanLinesBranch. */
export type ScannedEntry = { position: number; text?: string };

/**
 * The active branch: from the last entry up to the root through parentId. A parent that is not in
 * the source (excerpts, lost lines) continues with the entry just before, so a gap does not cut
 * the conversation. Positions are line numbers or row sequence numbers, increasing. Returns
 * 'rescan' when an incremental read branches off somewhere before what it read.
 */
export async function scanBranch(
  entries: AsyncIterable<ScannedEntry> | Iterable<ScannedEntry>,
  startPosition: number,
  tip: string | null,
): Promise<Branch | 'rescan'> {
  const table = new EntryTable(startPosition);
  let seen = 0;
  for await (const e of entries) {
    // Rows and archives are read synchronously: yield now and then so the app's event loop keeps going.
    if (++seen % 2000 === 0) await yieldToEventLoop();
    addEntry(table, e.text === undefined ? undefined : entryHead(e.text), e.position);
  }
  return table.activeBranch(tip);
}

/**
 * scanBranch over a file's lines read with `raw`: each head is read from the line's first bytes. The lines
 * are taken as readLineBatches gives them, without a generator between that makes an entry of each.
 */
export async function scanLinesBranch(
  batches: AsyncIterable<SourceLine[]>,
  startPosition: number,
  tip: string | null,
): Promise<Branch | 'rescan'> {
  const table = new EntryTable(startPosition);
  for await (const lines of batches) addLines(table, lines);
  return table.activeBranch(tip);
}

/** A batch's entries, outside the async function: its loop is optimized on its own, not as part of the function's state machine. */
function addLines(table: EntryTable, lines: readonly SourceLine[]): void {
  for (const l of lines) addEntry(table, l.raw ? entryHeadOfBytes(l.raw) : undefined, l.lineNumber);
}

function addEntry(table: EntryTable, head: EntryHead | undefined, position: number): void {
  if (head?.id && head.type !== 'session') table.add(head.id, head.parent, position);
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

/** The agent side's metadata, added to the turn's own object as userMetadata does. */
function agentMetadata(t: OpenTurn): Obj {
  const meta = t.agent;
  meta.entryIds = t.agentEntryIds;
  if (t.toolCalls.length) meta.toolCalls = t.toolCalls;
  if (t.toolResults.length) meta.toolResults = t.toolResults;
  if (t.agentEntryIds.length === 0) meta.noReply = true;
  return meta;
}

/** Reads one transcript's entries in order and writes its turns. */
export class TranscriptReader {
  private sessionId: string | null = null;

  constructor(
    private readonly run: TranscriptRun,
    private readonly target: TranscriptTarget,
    public state: TranscriptState,
    private readonly branch: Branch,
  ) {}

  private session(at: number): string {
    if (!this.sessionId) {
      const { ctx, store, described, now } = this.run;
      const row = sessionRowFor(ctx.db, this.target.entry, this.state.headerId ?? this.target.transcriptKey, at, now);
      if (!described.has(row.id)) store.upsertSession(row);
      this.sessionId = row.id;
    }
    return this.sessionId;
  }

  private remember(role: ContextSnapshot['role'], message: string, timestamp: number): void {
    const w = this.state.window;
    w.push({ role, message, timestamp });
    if (w.length > WINDOW) w.splice(0, w.length - WINDOW);
  }

  /** Writes the open turn (if any). */
  emit(): void {
    const t = this.state.open;
    if (!t) return;
    const { store, report } = this.run;
    this.state.open = null;
    const agentText = t.agentTexts.join('\n\n');
    if (agentText) this.remember('agent', agentText, t.agentAt ?? t.userAt);
    const sid = this.session(t.userAt);
    const createdAt = t.agentAt ?? t.userAt;
    // The plugin's logs may already hold this exchange in the same session: keep one copy.
    if (!store.turnExists(t.id) && store.turnOfUserMessage(sid, t.userAt - 60_000, createdAt + 60_000, t.userText)) {
      report.ignore('turns already imported from the plugin logs');
      return;
    }
    const marks = this.state.marks.splice(0);
    store.insertTurn({
      id: t.id,
      sessionId: sid,
      userMessageId: t.userMessageId,
      userContent: t.userText,
      userFrom: t.userFrom,
      userMetadata: this.userMetadata(t, marks),
      agentMessageId: t.agentEntryIds[t.agentEntryIds.length - 1] ?? null,
      agentContent: agentText,
      agentMetadata: agentMetadata(t),
      createdAt,
      // Snapshots are never changed once remembered: the turn keeps the window as it is now, not copies of it.
      context: this.state.window.slice(),
    });
  }

  /**
   * The user side's metadata, added to the turn's own object (the turn is done with it): the keys in the
   * order they always had, without the copies a spread per optional key made.
   */
  private userMetadata(t: OpenTurn, marks: Obj[]): Obj {
    const meta = t.userMeta;
    meta.entryIds = t.userEntryIds;
    meta.transcript = this.target.sourceName;
    if (t.failedAttempts.length) meta.failedAttempts = t.failedAttempts;
    if (t.userEntryIds.length > 1) meta.resentAfterFailure = t.userEntryIds.length - 1;
    if (marks.length) meta.before = marks;
    if (marks.some((m) => m.kind === 'reset')) meta.afterReset = true;
    return meta;
  }

  private startTurn(entryId: string, at: number, text: string, meta: Obj, messageId: string | null, from: string | null): void {
    this.state.open = {
      id: sourceUlid(at, 'openclaw', this.target.transcriptKey, entryId),
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
    if (text) this.remember('user', text, at);
  }

  private onUser(m: Obj, id: string, at: number): void {
    const { texts, others } = textBlocks(m.content, 'message.');
    const env = stripUserEnvelope(texts.join('\n'));
    const open = this.state.open;
    // A failed attempt is often followed by the same text sent again: one turn, not two.
    if (open && open.agentEntryIds.length === 0 && open.toolCalls.length === 0 && open.userText === env.text) {
      open.userEntryIds.push(id);
      return;
    }
    this.emit();
    const info = isObj(env.blocks.conversationInfo) ? env.blocks.conversationInfo : undefined;
    const sender = isObj(env.blocks.sender) ? env.blocks.sender : undefined;
    const meta: Obj = {};
    if (Object.keys(env.blocks).length) meta.envelope = env.blocks;
    if (env.sentAt) meta.sentAt = env.sentAt;
    if (others.length) meta.attachments = others.map((b) => ({ type: b.type, mimeType: b.mimeType }));
    const messageId = info && (typeof info.message_id === 'string' || typeof info.message_id === 'number') ? String(info.message_id) : id;
    const from =
      (sender && typeof sender.label === 'string' && sender.label) || (info && typeof info.sender === 'string' && info.sender) || null;
    this.startTurn(id, at, env.text, meta, messageId, from);
  }

  private onAssistant(m: Obj, id: string, at: number): void {
    const { report } = this.run;
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
      this.state.open?.failedAttempts.push({
        entryId: id,
        at,
        model,
        provider,
        error: typeof m.errorMessage === 'string' ? m.errorMessage : null,
      });
      return;
    }
    if (!this.state.open) this.startTurn(id, at, '', { noUserMessage: true }, null, null);
    const t = this.state.open!;
    for (const text of visible) {
      const { text: clean, tags } = stripReplyTags(text);
      t.agentTexts.push(clean);
      if (tags.length) t.agent.replyTags = [...((t.agent.replyTags as string[]) ?? []), ...tags];
    }
    for (const c of calls) {
      const args = JSON.stringify(c.arguments ?? null);
      t.toolCalls.push({
        id: c.id,
        name: c.name,
        arguments: args.length > MAX_TEXT_IN_METADATA ? { truncated: args.slice(0, MAX_TEXT_IN_METADATA) } : c.arguments,
      });
    }
    t.agentEntryIds.push(id);
    t.agentAt = at;
    t.agent.model = model ?? this.state.model;
    if (provider) t.agent.provider = provider;
    if (stopReason) t.agent.stopReason = stopReason;
    if (typeof m.responseId === 'string') t.agent.responseId = m.responseId;
    if (isObj(m.usage)) t.agent.usage = addUsage(t.agent.usage as Obj | undefined, m.usage);
    const thinking = others.filter((b) => b.type === 'thinking').length;
    if (thinking) t.agent.thinkingBlocks = ((t.agent.thinkingBlocks as number) ?? 0) + thinking;
    // A reply without tool calls ends the turn; with tool calls, results and more replies follow.
    if (calls.length === 0 && stopReason !== 'toolUse' && visible.length > 0) this.emit();
  }

  private onToolResult(m: Obj): void {
    const t = this.state.open;
    if (!t) {
      this.run.report.ignore('tool results outside a turn');
      return;
    }
    const { texts } = Array.isArray(m.content) || typeof m.content === 'string' ? textBlocks(m.content, 'message.') : { texts: [] };
    t.toolResults.push({ toolCallId: m.toolCallId, toolName: m.toolName, isError: m.isError === true, ...cap(texts.join('\n')) });
  }

  /**
   * A reset opens a fresh history window: the turn in progress ends there, the context the agent
   * sees starts again, and the next turn carries the boundary so a curator sees where it happened.
   */
  private onReset(e: Obj, id: string, at: number): void {
    this.emit();
    this.state.window = [];
    this.run.report.ignore('reset boundaries marked');
    this.state.marks.push({
      kind: 'reset',
      entryId: id,
      at,
      ...(typeof e.firstKeptEntryId === 'string' ? { firstKeptEntryId: e.firstKeptEntryId } : {}),
    });
  }

  /**
   * Handles one entry. Throws SkipLine (with a reason) for an entry that cannot be used.
   * `fallbackAt` is the row's own time, for stores that keep it beside the entry.
   */
  handle(e: Obj, position: number, fallbackAt?: number): void {
    const { report, store, ctx, now } = this.run;
    const type = str(e, 'type');
    if (!KNOWN_TYPES.has(type)) skipLine(`unknown entry type ${JSON.stringify(type.slice(0, 40))}`);
    if (type === 'session') {
      if (typeof e.id === 'string' && e.id) this.state.headerId ??= e.id;
      return;
    }
    const id = str(e, 'id');
    if (e.parentId !== null && e.parentId !== undefined && typeof e.parentId !== 'string') skipLine('parentId: expected a string or null');
    if (!this.branch.has(position)) {
      report.ignore('entries on abandoned branches');
      return;
    }
    this.state.tip = id;
    const at =
      parseTime(e.timestamp) ??
      (isObj(e.message) ? parseTime(e.message.timestamp) : undefined) ??
      fallbackAt ??
      skipLine('timestamp: missing or not a valid time');
    switch (type) {
      case 'message': {
        const m = obj(e, 'message');
        const role = str(m, 'role', 'message.');
        if (role === 'user') return this.onUser(m, id, at);
        if (role === 'assistant') return this.onAssistant(m, id, at);
        if (role === 'toolResult') return this.onToolResult(m);
        return skipLine(`message.role: unknown role ${JSON.stringify(role.slice(0, 30))}`);
      }
      case 'model_change':
        this.state.model = [optStr(e, 'provider'), optStr(e, 'modelId')].filter(Boolean).join('/') || this.state.model;
        return;
      case 'custom':
        if (e.customType === 'model-snapshot' && isObj(e.data) && typeof e.data.modelId === 'string') {
          this.state.model = [e.data.provider, e.data.modelId].filter((x) => typeof x === 'string').join('/');
        }
        return;
      case 'compaction':
        report.ignore('compactions marked');
        this.state.marks.push({
          kind: 'compaction',
          entryId: id,
          at,
          tokensBefore: e.tokensBefore,
          firstKeptEntryId: e.firstKeptEntryId,
          ...cap(typeof e.summary === 'string' ? e.summary : ''),
        });
        return;
      case 'reset':
        return this.onReset(e, id, at);
      case 'branch_summary':
        this.state.marks.push({ kind: 'branch_summary', entryId: id, at, ...cap(typeof e.summary === 'string' ? e.summary : '') });
        return;
      case 'session_info':
        if (typeof e.name === 'string') {
          store.upsertSession({
            ...sessionRowFor(ctx.db, this.target.entry, this.state.headerId ?? this.target.transcriptKey, at, now),
            metadata: { openclaw: { name: e.name } },
          });
        }
        return;
      default:
        return;
    }
  }
}
