// The demo workspace: a believable, reproducible recorded workspace made through the recorder,
// small by default (UI tests make many) and able to reach a million turns for benchmarks.
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { MEMORY_FILES, fileForDecision, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { dbPathFor, openWorkspaceDatabase, type DB } from '../db/connection';
import { checkpointWal } from '../db/maintenance';
import { memoryFilePath } from '../files/memoryFiles';
import { RecorderCore } from '../recorder/recorder';
import { CHANNELS, FILE_PREAMBLES, LLM_MODELS, hostileTurns, randomTurn, tourTurns, type Lang, type TurnScript } from './content';
import { createRng, seededUlidFactory, type Rng } from './random';

export interface DemoOptions {
  /** Number of sessions (default 40). Two of them are scripted: a tour of every decision kind, and hostile text. */
  sessions?: number;
  seed?: number | string;
  /** Turns per random session; default 4-20 at random. */
  turnsPerSession?: number;
  /** Messages in each turn's context window, the current user message included (default 6). */
  contextWindow?: number;
  /** Writes that really change a file; past this, further proposals are recorded as skipped. Default: all up to 50k turns, else 3000. */
  maxContentWrites?: number;
  /** Turns per transaction (default 2000). */
  batchSize?: number;
  /** First moment of the demo's history, ms since epoch (default 2026-03-01T08:00:00Z). */
  baseTime?: number;
  progress?: (done: number, total: number) => void;
}

export interface DemoSummary {
  dir: string;
  dbPath: string;
  seed: string;
  sessions: number;
  turns: number;
  contextItems: number;
  decisions: number;
  writes: Record<'written' | 'refused' | 'failed' | 'skipped', number>;
  hostileSessionId: string;
  tourSessionId: string;
  firstAt: number;
  lastAt: number;
  elapsedMs: number;
}

export const DEMO_BASE_TIME = Date.UTC(2026, 2, 1, 8, 0, 0);
export const HOSTILE_SESSION_ID = 'channel:webchat:security-test';
export const TOUR_SESSION_ID = 'channel:discord:dm-alex';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A memory file as an editable list of learned bullets under a fixed preamble. */
class MemoryFileModel {
  private readonly bullets: string[] = [];
  private replaceAt = 0;
  constructor(
    readonly name: MemoryFileName,
    private readonly preamble: string,
    private readonly cap = 14,
  ) {}
  content(): string {
    return this.preamble + this.bullets.map((b) => `- ${b}\n`).join('');
  }
  has(fact: string): boolean {
    return this.bullets.includes(fact);
  }
  /** Adds the fact; once the section is full, the oldest line is rewritten, as a consolidating guardian would. */
  apply(fact: string): void {
    if (this.bullets.length < this.cap) this.bullets.push(fact);
    else {
      this.bullets[this.replaceAt] = fact;
      this.replaceAt = (this.replaceAt + 1) % this.cap;
    }
  }
}

interface SessionPlan {
  id: string;
  channelId: string;
  target: string;
  accountId: string;
  lang: Lang | 'mixed';
  times: number[];
  script?: TurnScript[];
  history: Array<{ role: 'user' | 'agent'; message: string; timestamp: number }>;
  nextTurn: number;
}

function planSessions(rng: Rng, count: number, turnsPerSession: number | undefined, baseTime: number): SessionPlan[] {
  const expectedTurns = count * (turnsPerSession ?? 12);
  const spanMs = Math.min(365, Math.max(21, Math.round(expectedTurns / 2000))) * DAY;
  const used = new Set<string>([HOSTILE_SESSION_ID, TOUR_SESSION_ID]);
  const plans: SessionPlan[] = [];
  const gap = () => {
    const x = rng.next();
    if (x < 0.7) return rng.range(20, 240) * 1000;
    if (x < 0.95) return rng.range(5, 60) * MINUTE;
    return rng.range(3, 30) * 60 * MINUTE;
  };
  const timesFrom = (start: number, n: number) => {
    const t: number[] = [];
    let at = start;
    for (let i = 0; i < n; i++) {
      t.push(at);
      at += gap();
    }
    return t;
  };
  const scripted = (id: string, channelId: string, target: string, script: TurnScript[], start: number): SessionPlan => ({
    id,
    channelId,
    target,
    accountId: 'acct-alex',
    lang: 'mixed',
    times: timesFrom(start, script.length),
    script,
    history: [],
    nextTurn: 0,
  });
  plans.push(scripted(TOUR_SESSION_ID, 'discord', 'dm-alex', tourTurns(rng), baseTime + 2 * DAY));
  if (count > 1) plans.push(scripted(HOSTILE_SESSION_ID, 'webchat', 'security-test', hostileTurns(), baseTime + spanMs / 2));
  for (let i = plans.length; i < count; i++) {
    const ch = rng.pick(CHANNELS);
    let target: string = rng.pick(ch.targets);
    let id = `channel:${ch.channel}:${target}`;
    for (let n = 2; used.has(id); n++) {
      target = `${rng.pick(ch.targets)}-${n}`;
      id = `channel:${ch.channel}:${target}`;
    }
    used.add(id);
    const x = rng.next();
    const lang: SessionPlan['lang'] = x < 0.45 ? 'en' : x < 0.9 ? 'zh' : 'mixed';
    const n = turnsPerSession ?? rng.range(4, 20);
    const start = baseTime + Math.floor(rng.next() * spanMs);
    plans.push({
      id,
      channelId: ch.channel,
      target,
      accountId: rng.pick(['acct-alex', 'acct-team', 'acct-family']),
      lang,
      times: timesFrom(start, n),
      history: [],
      nextTurn: 0,
    });
  }
  return plans;
}

/** Every turn of every session in time order (ties broken by session, then turn), as parallel typed arrays. */
function chronologicalOrder(plans: SessionPlan[]): { session: Int32Array; total: number } {
  const total = plans.reduce((n, p) => n + p.times.length, 0);
  const times = new Float64Array(total);
  const session = new Int32Array(total);
  let k = 0;
  plans.forEach((p, s) => {
    for (const t of p.times) {
      times[k] = t;
      session[k++] = s;
    }
  });
  const order = new Uint32Array(total);
  for (let i = 0; i < total; i++) order[i] = i;
  // order holds every index of times and session once
  order.sort((a, b) => times[a]! - times[b]! || a - b);
  const sorted = new Int32Array(total);
  for (let i = 0; i < total; i++) sorted[i] = session[order[i]!]!;
  return { session: sorted, total };
}

function ensureEmptyWorkspace(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  if (fs.existsSync(dbPathFor(dir))) {
    throw new AppError('Conflict', `${dir} already holds a Reflection database; the demo only fills a new workspace`);
  }
  const present = MEMORY_FILES.filter((f) => fs.existsSync(path.join(dir, f)));
  if (present.length) throw new AppError('Conflict', `${dir} already has ${present.join(', ')}; the demo only fills a new workspace`);
}

function validate(options: DemoOptions): void {
  const positiveInt = (name: string, v: number | undefined, max: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > max)) {
      throw new AppError('Invalid', `demo: ${name}: expected a whole number from 1 to ${max}, got ${v}`);
    }
  };
  positiveInt('sessions', options.sessions, 1_000_000);
  positiveInt('turnsPerSession', options.turnsPerSession, 100_000);
  positiveInt('contextWindow', options.contextWindow, 100);
  positiveInt('batchSize', options.batchSize, 1_000_000);
  if (options.maxContentWrites !== undefined && (!Number.isInteger(options.maxContentWrites) || options.maxContentWrites < 0)) {
    throw new AppError('Invalid', `demo: maxContentWrites: expected a whole number >= 0, got ${options.maxContentWrites}`);
  }
}

export function generateDemoWorkspace(dir: string, options: DemoOptions = {}): DemoSummary {
  validate(options);
  const started = performance.now();
  const workspace = path.resolve(dir);
  ensureEmptyWorkspace(workspace);
  const seed = String(options.seed ?? 1);
  const rng = createRng(seed);
  const plans = planSessions(rng, options.sessions ?? 40, options.turnsPerSession, options.baseTime ?? DEMO_BASE_TIME);
  const order = chronologicalOrder(plans);
  const opened = openWorkspaceDatabase(workspace);
  try {
    const summary = emit(opened.db, plans, order, rng, options, order.total > 50_000 ? 3000 : Number.POSITIVE_INFINITY);
    checkpointWal(opened.db);
    // A brand-new workspace nobody else writes yet: a synchronous atomic write is enough (no lock to take),
    // through the same path check as every other memory-file write.
    for (const [name, model] of summary.files) writeFileAtomic.sync(memoryFilePath(workspace, name), model.content(), { encoding: 'utf8' });
    return {
      ...summary.counts,
      dir: workspace,
      dbPath: opened.file,
      seed,
      sessions: plans.length,
      hostileSessionId: HOSTILE_SESSION_ID,
      tourSessionId: TOUR_SESSION_ID,
      elapsedMs: Math.round(performance.now() - started),
    };
  } finally {
    opened.db.close();
  }
}

type DemoCounts = Pick<DemoSummary, 'turns' | 'contextItems' | 'decisions' | 'writes' | 'firstAt' | 'lastAt'>;

/** What every emitted turn reads and updates. */
interface Emitter {
  core: RecorderCore;
  rng: Rng;
  files: Map<MemoryFileName, MemoryFileModel>;
  lastWriteAt: Map<MemoryFileName, number>;
  windowSize: number;
  contentWritesLeft: number;
  counts: DemoCounts;
}

/** The decision a write belongs to, as recordWrite names it. */
interface DecidedTurn {
  decisionId: string;
  turnId: string;
  sessionId: string;
  model: string;
  decidedAt: number;
}

function emit(
  db: DB,
  plans: SessionPlan[],
  order: { session: Int32Array; total: number },
  rng: Rng,
  options: DemoOptions,
  defaultCap: number,
) {
  const e: Emitter = {
    core: new RecorderCore(db, { newId: seededUlidFactory(rng) }),
    rng,
    files: new Map<MemoryFileName, MemoryFileModel>(MEMORY_FILES.map((f) => [f, new MemoryFileModel(f, FILE_PREAMBLES[f])])),
    lastWriteAt: new Map<MemoryFileName, number>(),
    windowSize: options.contextWindow ?? 6,
    contentWritesLeft: options.maxContentWrites ?? defaultCap,
    counts: {
      turns: 0,
      contextItems: 0,
      decisions: 0,
      writes: { written: 0, refused: 0, failed: 0, skipped: 0 },
      firstAt: Number.POSITIVE_INFINITY,
      lastAt: 0,
    },
  };
  const batchSize = options.batchSize ?? 2000;
  for (let start = 0; start < order.total; start += batchSize) {
    const end = Math.min(order.total, start + batchSize);
    e.core.batch(() => {
      for (let k = start; k < end; k++) emitTurn(e, plans[order.session[k]!]!); // order.session holds plan indexes, one per turn
    });
    options.progress?.(end, order.total);
  }
  return { counts: e.counts, files: e.files };
}

/** The plan's next turn: its session (on the first turn), messages, context window, gate decision and any write. */
function emitTurn(e: Emitter, plan: SessionPlan): void {
  const { core, rng, counts } = e;
  const turnNumber = plan.nextTurn++;
  const at = plan.times[turnNumber];
  if (at === undefined) throw new AppError('Internal', `demo session ${plan.id} has no time for turn ${turnNumber}`);
  if (turnNumber === 0) {
    core.upsertSession({
      id: plan.id,
      channelId: plan.channelId,
      conversationTarget: plan.target,
      accountId: plan.accountId,
      createdAt: at,
      lastActivityAt: at,
      metadata: { demo: true, lang: plan.lang },
    });
  }
  const lang: Lang = plan.lang === 'mixed' ? (rng.chance(0.5) ? 'en' : 'zh') : plan.lang;
  const script = plan.script ? plan.script[turnNumber] : randomTurn(rng, lang);
  if (!script) throw new AppError('Internal', `demo session ${plan.id} has no script for turn ${turnNumber}`);
  const agentAt = at + rng.range(800, 6000);
  const turn = core.insertTurn({
    sessionId: plan.id,
    turnNumber,
    userMessage: { id: `msg-${plan.target}-${turnNumber * 2}`, content: script.user, from: plan.accountId },
    agentReply: { id: `msg-${plan.target}-${turnNumber * 2 + 1}`, content: script.agent },
    createdAt: agentAt,
  });
  const context = [...plan.history.slice(-(e.windowSize - 1)), { role: 'user' as const, message: script.user, timestamp: at }];
  core.insertContextBatch(turn.id, context);
  plan.history.push({ role: 'user', message: script.user, timestamp: at }, { role: 'agent', message: script.agent, timestamp: agentAt });
  if (plan.history.length > 2 * e.windowSize) plan.history.splice(0, plan.history.length - e.windowSize);

  const latency = rng.range(250, 2600);
  const decidedAt = agentAt + latency;
  const model = rng.pick(LLM_MODELS);
  const decisionId = core.insertDecision({
    turnId: turn.id,
    sessionId: plan.id,
    decision: script.decision,
    reason: script.reason,
    candidateFact: script.fact,
    llmCall: {
      model,
      latencyMs: latency,
      promptTokens: rng.range(420, 2400),
      completionTokens: rng.range(24, 140),
      rawResponse: JSON.stringify({ decision: script.decision, reason: script.reason, candidate_fact: script.fact ?? null }),
    },
    source: 'demo',
    createdAt: decidedAt,
  });
  counts.turns++;
  counts.contextItems += context.length;
  counts.decisions++;
  counts.firstAt = Math.min(counts.firstAt, at);
  counts.lastAt = Math.max(counts.lastAt, decidedAt);
  emitWrite(e, script, { decisionId, turnId: turn.id, sessionId: plan.id, model, decidedAt });
}

/** The write_guardian outcome of a decision that proposes a fact: refused, skipped, failed or written. */
function emitWrite(e: Emitter, script: TurnScript, d: DecidedTurn): void {
  const { core, rng, counts } = e;
  const file = fileForDecision(script.decision);
  if (!file || !script.fact) return;
  const model = e.files.get(file)!;
  // Writes to one file are serialized, so each one's time follows the previous: the snapshot chain stays ordered.
  const writeAt = Math.max(d.decidedAt + rng.range(400, 4000), (e.lastWriteAt.get(file) ?? 0) + 1);
  e.lastWriteAt.set(file, writeAt);
  counts.lastAt = Math.max(counts.lastAt, writeAt);
  const base = {
    decisionId: d.decisionId,
    turnId: d.turnId,
    sessionId: d.sessionId,
    targetFile: file,
    candidateFact: script.fact,
    createdAt: writeAt,
    llmCall: { model: d.model, latencyMs: rng.range(600, 5200), agentSteps: rng.range(1, 4) },
  };
  const roll = rng.next();
  if (script.mustRefuse) {
    core.recordWrite({ ...base, status: 'refused', reason: script.mustRefuse });
    counts.writes.refused++;
  } else if (model.has(script.fact) || e.contentWritesLeft <= 0) {
    core.recordWrite({ ...base, status: 'skipped', reason: `The fact is already recorded in ${file}.` });
    counts.writes.skipped++;
  } else if (roll < 0.08) {
    core.recordWrite({
      ...base,
      status: 'refused',
      reason: rng.pick([
        `Contradicts an existing line in ${file}; asked the user to confirm first.`,
        'Too vague to store as a lasting fact.',
        '与现有记录冲突，需要用户确认。',
      ]),
    });
    counts.writes.refused++;
  } else if (roll < 0.13) {
    core.recordWrite({
      ...base,
      status: 'failed',
      reason: rng.pick([
        'LLM call timed out after 30000 ms.',
        `Could not take the lock on ${file} within 5 s.`,
        '写入失败：模型返回了无效的编辑指令。',
      ]),
    });
    counts.writes.failed++;
  } else {
    const before = model.content();
    model.apply(script.fact);
    core.recordWrite({ ...base, status: 'written', before, after: model.content(), reason: 'Applied the candidate fact.' });
    counts.writes.written++;
    e.contentWritesLeft--;
  }
}
