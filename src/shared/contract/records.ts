// The recorded-workspace calls (sessions, turns, context, search, memory_gate): input and output schemas, and the
// TS types inferred from them. The services in src/core/{sessions,gate,search} return exactly these, so a handler
// only calls the service, and the registry checks answers against the schemas outside production.
// Plain JSON data; times are epoch milliseconds.
import { z } from 'zod';
import { AUDIT_SOURCES, AUDIT_STATUSES, GATE_DECISIONS, MEMORY_FILES } from '../domain';
import { cursor, epochMs, id, limit, pageOf, query } from './define';

const jsonObject = z.record(z.string(), z.unknown());
const byDecisionSchema = z.object(
  Object.fromEntries(GATE_DECISIONS.map((d) => [d, z.number()])) as Record<(typeof GATE_DECISIONS)[number], z.ZodNumber>,
);
const latencyByDecisionSchema = z.object(
  Object.fromEntries(GATE_DECISIONS.map((d) => [d, z.number().nullable()])) as Record<
    (typeof GATE_DECISIONS)[number],
    z.ZodNullable<z.ZodNumber>
  >,
);
const lineChangesSchema = z.object({ added: z.number(), removed: z.number(), modified: z.number() });

// ---- sessions, turns, context ----
export const sessionRowSchema = z.object({
  id: z.string(),
  channelId: z.string(),
  conversationTarget: z.string().nullable(),
  accountId: z.string().nullable(),
  createdAt: z.number(),
  lastActivityAt: z.number(),
  turnCount: z.number(),
  decisionCount: z.number(),
  /** True when the session is excluded (opt-out): never collected or exported. */
  excluded: z.boolean(),
});
export type SessionRow = z.infer<typeof sessionRowSchema>;
export const sessionDetailSchema = sessionRowSchema.extend({ metadata: jsonObject.nullable(), writeCount: z.number() });
export type SessionDetail = z.infer<typeof sessionDetailSchema>;

export const contextItemSchema = z.object({
  id: z.number(),
  turnId: z.string(),
  role: z.enum(['user', 'agent']),
  message: z.string(),
  timestamp: z.number(),
  sequenceNumber: z.number(),
});
export type ContextItemDto = z.infer<typeof contextItemSchema>;

export const turnSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  turnNumber: z.number(),
  userMessage: z.string(),
  userFrom: z.string().nullable(),
  agentReply: z.string(),
  createdAt: z.number(),
  userMetadata: jsonObject.nullable().optional(),
  agentMetadata: jsonObject.nullable().optional(),
});
export type TurnDto = z.infer<typeof turnSchema>;

// ---- write outcomes (the write_guardian audit row every view shows) ----
export const auditRowSchema = z.object({
  id: z.string(),
  decisionId: z.string().nullable(),
  turnId: z.string().nullable(),
  sessionId: z.string().nullable(),
  targetFile: z.enum(MEMORY_FILES),
  candidateFact: z.string().nullable(),
  status: z.enum(AUDIT_STATUSES),
  source: z.enum(AUDIT_SOURCES),
  reason: z.string().nullable(),
  lineChanges: lineChangesSchema.nullable(),
  /** Unified diff of the write, where a view shows it (a decision's writes, lists with diffs). */
  diff: z.string().nullable().optional(),
  /** Absent in timeline views. */
  beforeSnapshotId: z.string().nullable().optional(),
  afterSnapshotId: z.string().nullable().optional(),
  relatedAuditId: z.string().nullable().optional(),
  /** List views, rollback rows: the write this rollback undid (or re-applied). */
  undid: z
    .object({ id: z.string(), targetFile: z.enum(MEMORY_FILES), candidateFact: z.string().nullable(), createdAt: z.number() })
    .nullable()
    .optional(),
  /** False for writes imported from logs: before/after content unknown, so no diff and no rollback. */
  contentKnown: z.boolean().optional(),
  createdAt: z.number(),
});
export type AuditRow = z.infer<typeof auditRowSchema>;

// ---- memory_gate ----
export const gateDecisionRowSchema = z.object({
  id: z.string(),
  turnId: z.string(),
  sessionId: z.string(),
  decision: z.enum(GATE_DECISIONS),
  reason: z.string(),
  candidateFact: z.string().nullable(),
  model: z.string(),
  latencyMs: z.number().nullable(),
  promptTokens: z.number().nullable().optional(),
  completionTokens: z.number().nullable().optional(),
  /** recorder, an importer, demo; absent in timeline views. */
  source: z.string().optional(),
  createdAt: z.number(),
  /** Status of the latest write_guardian outcome of this decision (list views). */
  writeStatus: z.enum(AUDIT_STATUSES).nullable().optional(),
  /** The turn's number and messages, for list views (decisions are listed with their conversation). */
  turnNumber: z.number().optional(),
  userMessage: z.string().optional(),
  agentReply: z.string().optional(),
  /** With `withContext`: the context window memory_gate saw. */
  context: z.array(contextItemSchema).optional(),
});
export type GateDecisionRow = z.infer<typeof gateDecisionRowSchema>;

/** A turn as the session timeline shows it: with its gate decisions and write outcomes inline. */
export const turnViewSchema = turnSchema.extend({ decisions: z.array(gateDecisionRowSchema), writes: z.array(auditRowSchema) });
export type TurnView = z.infer<typeof turnViewSchema>;
export const turnDetailSchema = z.object({
  turn: turnSchema,
  context: z.array(contextItemSchema),
  decisions: z.array(gateDecisionRowSchema),
  writes: z.array(auditRowSchema),
});
export type TurnDetail = z.infer<typeof turnDetailSchema>;

export const gateDecisionPageSchema = pageOf(gateDecisionRowSchema).extend({
  /** Set when a free-text filter had no term of 3+ characters: only the newest this-many decisions were searched. */
  scanned: z.number().optional(),
});
export type GateDecisionPage = z.infer<typeof gateDecisionPageSchema>;
export const gateDecisionDetailSchema = z.object({
  decision: gateDecisionRowSchema.extend({ rawResponse: z.string().nullable() }),
  turn: turnSchema,
  context: z.array(contextItemSchema),
  /** Every write outcome of the decision, with its diff. */
  writes: z.array(auditRowSchema),
});
export type GateDecisionDetail = z.infer<typeof gateDecisionDetailSchema>;

export const gateStatsBucketSchema = z.object({
  /** YYYY-MM-DD (daily), the Monday's YYYY-MM-DD (weekly) or the session id (by session). */
  key: z.string(),
  total: z.number(),
  byDecision: byDecisionSchema,
  avgLatencyMs: z.number().nullable(),
  sessionCount: z.number(),
});
export type GateStatsBucket = z.infer<typeof gateStatsBucketSchema>;
export const gateStatsSchema = z.object({
  groupBy: z.enum(['none', 'daily', 'weekly', 'session']),
  buckets: z.array(gateStatsBucketSchema),
  totals: z.object({
    total: z.number(),
    byDecision: byDecisionSchema,
    avgLatencyMs: z.number().nullable(),
    avgLatencyByDecision: latencyByDecisionSchema,
  }),
});
export type GateStats = z.infer<typeof gateStatsSchema>;

// ---- search ----
export const SEARCH_HIT_KINDS = ['turn', 'decision'] as const;
export type SearchHitKind = (typeof SEARCH_HIT_KINDS)[number];
export const searchHitSchema = z.object({
  kind: z.enum(SEARCH_HIT_KINDS),
  /** turn id or decision id */
  id: z.string(),
  sessionId: z.string(),
  turnId: z.string(),
  field: z.enum(['user_message', 'agent_message', 'reason', 'candidate_fact']),
  /** The matching text (possibly cut around the match, marked with …). Plain text: never render as HTML. */
  text: z.string(),
  /** Match ranges in `text` as [start, end) UTF-16 offsets, for highlighting. */
  matches: z.array(z.tuple([z.number(), z.number()])),
  createdAt: z.number(),
  /** Decision hits: the decision's type. */
  decision: z.enum(GATE_DECISIONS).optional(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;
export type SearchHitField = SearchHit['field'];
export const searchPageSchema = z.object({
  items: z.array(searchHitSchema),
  /** The service answers its best hits in one page (newest first). */
  nextCursor: z.null(),
  mode: z.enum(['fts', 'scan']),
  /** Scan mode only: the newest `scanned` rows were looked at, older ones were not. */
  scanned: z.number().optional(),
});
export type SearchPage = z.infer<typeof searchPageSchema>;

// ---- the calls ----
const timeRange = { since: epochMs.optional(), until: epochMs.optional() };
const text = z.string().max(500);

export const recordContracts = {
  'sessions.list': query(pageOf(sessionRowSchema))(
    z.strictObject({ limit: limit(), cursor, channelId: z.string().max(200).optional(), text: text.optional() }),
    'Sessions, most recent activity first',
  ),
  'sessions.get': query(sessionDetailSchema)(z.strictObject({ id }), 'One session with counts'),
  'turns.list': query(pageOf(turnViewSchema))(
    z.strictObject({ sessionId: id, limit: limit(), cursor, fromTurn: id.optional() }),
    'A session timeline: turns in order, each with its decisions and writes (fromTurn: start at that turn)',
  ),
  'turns.get': query(turnDetailSchema)(z.strictObject({ id }), 'One turn with its context window, decisions and writes'),
  'context.get': query(z.array(contextItemSchema))(z.strictObject({ turnId: id }), 'The context window of a turn'),
  'search.query': query(searchPageSchema)(
    z.strictObject({
      text: z.string().trim().min(1, 'search text is required').max(500),
      kinds: z.array(z.enum(SEARCH_HIT_KINDS)).max(2).optional(),
      sessionId: id.optional(),
      limit: limit(200, 50),
      cursor,
    }),
    'Full-text search over turns, facts and reasons (Chinese works)',
  ),
  'gate.list': query(gateDecisionPageSchema)(
    z.strictObject({
      sessionId: id.optional(),
      decision: z.enum(GATE_DECISIONS).optional(),
      text: text.optional(),
      limit: limit(),
      cursor,
      ...timeRange,
    }),
    'memory_gate decisions, newest first, with their conversation text',
  ),
  'gate.show': query(gateDecisionDetailSchema)(z.strictObject({ id }), 'A decision with its turn, context and writes'),
  'gate.stats': query(gateStatsSchema)(
    z.strictObject({ groupBy: z.enum(['daily', 'weekly', 'session']).default('daily'), ...timeRange, limit: limit(1000, 100) }),
    'Counts per decision type and average latency',
  ),
};
