import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import type { ServiceContext } from '../../src/core/context';
import { generateDemoWorkspace, HOSTILE_SESSION_ID, TOUR_SESSION_ID } from '../../src/core/demo';
import { exportDecisions, gateStats, listDecisions, showDecision, statsOverview } from '../../src/core/gate';
import { search } from '../../src/core/search';
import { getSession, getTurn, listSessions, listTurns } from '../../src/core/sessions';
import type { GateDecision } from '../../src/shared/domain';
import { tempWorkspace } from '../helpers/workspace';

let ctx: ServiceContext;
const all = (sql: string, ...p: unknown[]) => ctx.db.prepare(sql).all(...p) as Array<Record<string, unknown>>;

beforeAll(() => {
  const ws = tempWorkspace();
  generateDemoWorkspace(ws, { seed: 11 });
  ctx = { db: openWorkspaceDatabase(ws).db, workspaceDir: ws, now: () => Date.UTC(2026, 3, 1) };
});

describe('gate list', () => {
  it('pages by keyset through every decision exactly once, newest first', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = listDecisions(ctx, { limit: 37, cursor });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    const expected = all('SELECT id FROM memory_gate_decisions ORDER BY created_at DESC, seq DESC').map((r) => r.id);
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 37));
  });

  it('filters by session, decision, time range and text, with the conversation text on each row', () => {
    const bySession = listDecisions(ctx, { sessionId: TOUR_SESSION_ID, limit: 100 });
    expect(bySession.items.length).toBe(18);
    expect(bySession.items.every((i) => i.sessionId === TOUR_SESSION_ID && i.userMessage!.length > 0 && i.agentReply!.length > 0)).toBe(
      true,
    );
    const users = listDecisions(ctx, { decision: 'UPDATE_USER', limit: 5 });
    expect(users.items.map((i) => i.decision)).toEqual(Array(5).fill('UPDATE_USER'));
    expect(users.items.some((i) => i.writeStatus !== null)).toBe(true);
    const mid = all('SELECT created_at FROM memory_gate_decisions ORDER BY created_at').map((r) => r.created_at as number);
    const since = mid[100]!;
    const until = mid[150]!;
    const range = listDecisions(ctx, { since, until, limit: 1000 });
    expect(range.items.length).toBe(mid.filter((t) => t >= since && t < until).length);
    const iso = listDecisions(ctx, { since: new Date(since).toISOString(), until: new Date(until).toISOString(), limit: 1000 });
    expect(iso.items.map((i) => i.id)).toEqual(range.items.map((i) => i.id));
    const zh = listDecisions(ctx, { query: '咖啡', limit: 1000 });
    expect(zh.scanned).toBe(20_000);
    expect(listDecisions(ctx, { query: '早上偏好' }).scanned).toBeUndefined();
    expect(zh.items.length).toBeGreaterThan(0);
    expect(zh.items.every((i) => `${i.reason}${i.candidateFact}${i.userMessage}${i.agentReply}`.includes('咖啡'))).toBe(true);
    const withContext = listDecisions(ctx, { sessionId: TOUR_SESSION_ID, limit: 2, withContext: true });
    expect(withContext.items[0]!.context!.length).toBeGreaterThan(1);
  });

  it('names bad filters', () => {
    expect(() => listDecisions(ctx, { decision: 'MAYBE' as never })).toThrow(/decision: "MAYBE"/);
    expect(() => listDecisions(ctx, { since: 'yesterday-ish' })).toThrow(/since: "yesterday-ish" is not a time/);
    expect(() => listDecisions(ctx, { cursor: 'garbage' })).toThrow(/cursor/);
    expect(() => listDecisions(ctx, { limit: 0 })).toThrow(/limit/);
    expect(() => listDecisions(ctx, { since: 10, until: 5 })).toThrow(/since: must be before until/);
    expect(listDecisions(ctx, { since: '7d' }).items).toEqual([]);
  });
});

describe('gate show, stats, export', () => {
  it('shows a decision by id or unique prefix with its turn, context and writes with diffs', () => {
    const id = all(
      "SELECT d.id FROM memory_gate_decisions d JOIN write_guardian_audit a ON a.decision_id = d.id WHERE a.status = 'written' LIMIT 1",
    )[0]!.id as string;
    const full = showDecision(ctx, id, { withContext: true });
    expect(full.decision.id).toBe(id);
    expect(full.turn.id).toBe(full.decision.turnId);
    expect(full.context.at(-1)?.message).toBe(full.turn.userMessage);
    expect(full.decision.model).toBeTruthy();
    expect(full.writes[0]!.status).toBe('written');
    expect(full.writes[0]!.diff).toContain('@@');
    expect(JSON.parse(full.decision.rawResponse!).decision).toBe(full.decision.decision);
    expect(showDecision(ctx, id.slice(0, 20).toLowerCase()).decision.id).toBe(id);
    expect(() => showDecision(ctx, 'ZZZZZZZZZZ')).toThrow(/not found/);
  });

  it('counts decisions per type with average latency, per day, week and session', () => {
    const s = gateStats(ctx);
    const expected = all('SELECT decision, count(*) AS n, avg(llm_latency_ms) AS a FROM memory_gate_decisions GROUP BY decision');
    for (const e of expected) {
      const decision = e.decision as GateDecision;
      expect(s.totals.byDecision[decision]).toBe(e.n);
      expect(s.totals.avgLatencyByDecision[decision]).toBe(Math.round(e.a as number));
    }
    const daily = gateStats(ctx, { groupBy: 'daily', limit: 1000 });
    expect(daily.buckets.reduce((n, r) => n + r.total, 0)).toBe(s.totals.total);
    expect(daily.buckets[0]!.key > daily.buckets.at(-1)!.key).toBe(true);
    const weekly = gateStats(ctx, { groupBy: 'weekly', limit: 1000 });
    for (const r of weekly.buckets) expect(new Date(`${r.key}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(weekly.buckets.reduce((n, r) => n + r.total, 0)).toBe(s.totals.total);
    // Filters apply to stats too, including short free text that needs the turn's messages.
    for (const query of ['咖啡', '早上偏好']) {
      expect(gateStats(ctx, { query }).totals.total).toBe(listDecisions(ctx, { query, limit: 1000 }).items.length);
    }
    expect(gateStats(ctx, { decision: 'UPDATE_SOUL' }).totals.total).toBe(s.totals.byDecision.UPDATE_SOUL);
    const bySession = gateStats(ctx, { groupBy: 'session', limit: 3 });
    expect(bySession.buckets.length).toBe(3);
    expect(bySession.buckets[0]!.total).toBeGreaterThanOrEqual(bySession.buckets[1]!.total);
  });

  it('exports CSV that papaparse reads back, skipping opted-out sessions and neutralizing formulas', async () => {
    ctx.db.prepare("INSERT INTO exclusions (id, kind, value, created_at) VALUES ('x1', 'session', ?, 1)").run(HOSTILE_SESSION_ID);
    const file = path.join(ctx.workspaceDir, 'decisions.csv');
    const result = await exportDecisions(ctx, { format: 'csv', file, bom: true });
    const text = fs.readFileSync(file, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const parsed = Papa.parse<Record<string, string>>(text.slice(1), { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const total = all('SELECT count(*) AS n FROM memory_gate_decisions WHERE session_id <> ?', HOSTILE_SESSION_ID)[0]!.n;
    expect(result.rows).toBe(total);
    expect(parsed.data.length).toBe(total);
    expect(parsed.data.some((r) => r.session_id === HOSTILE_SESSION_ID)).toBe(false);
    expect(parsed.data.some((r) => /[一-龥]/.test(r.user_message ?? ''))).toBe(true);
    expect(parsed.data.every((r) => !/^[=+\-@]/.test(r.reason ?? ''))).toBe(true);
    const json = path.join(ctx.workspaceDir, 'd.json');
    await exportDecisions(ctx, { format: 'json', file: json, decision: 'UPDATE_SOUL' });
    const rows = JSON.parse(fs.readFileSync(json, 'utf8')) as Array<{ decision: string }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.decision === 'UPDATE_SOUL')).toBe(true);
    // Personal data leaves only when asked for: the demo's e-mail addresses are placeholders by default.
    const emails = all("SELECT user_message_content AS m FROM conversation_turns WHERE user_message_content LIKE '%@example.com%'");
    expect(emails.length).toBeGreaterThan(0);
    const address = /[\w.]+@example\.com/.exec(emails[0]!.m as string)![0];
    expect(text).not.toContain(address);
    expect(text).toContain('[EMAIL_1]');
    const rawFile = path.join(ctx.workspaceDir, 'decisions-pii.csv');
    await exportDecisions(ctx, { format: 'csv', file: rawFile, includePii: true });
    expect(fs.readFileSync(rawFile, 'utf8')).toContain(address);
    ctx.db.prepare("DELETE FROM exclusions WHERE id = 'x1'").run();
  });
});

describe('sessions, search, overview', () => {
  it('pages sessions by last activity and shows a timeline with decisions and writes inline', () => {
    const first = listSessions(ctx, { limit: 7 });
    const second = listSessions(ctx, { limit: 7, cursor: first.nextCursor! });
    const expected = all('SELECT id FROM sessions ORDER BY last_activity_at DESC, rowid DESC LIMIT 14').map((r) => r.id);
    expect([...first.items, ...second.items].map((s) => s.id)).toEqual(expected);
    // Opt-out by channel target shows on the session (through the excluded_sessions view).
    ctx.db.prepare("INSERT INTO exclusions (id, kind, value, created_at) VALUES ('x2', 'target', 'discord:dm-alex', 1)").run();
    const flagged = listSessions(ctx, { limit: 1000 }).items;
    expect(flagged.filter((s) => s.excluded).map((s) => s.id)).toEqual([TOUR_SESSION_ID]);
    ctx.db.prepare("DELETE FROM exclusions WHERE id = 'x2'").run();
    expect(listSessions(ctx, { limit: 1000 }).items.some((s) => s.excluded)).toBe(false);
    const tour = listSessions(ctx, { query: 'dm-alex', limit: 50 }).items.find((s) => s.id === TOUR_SESSION_ID)!;
    expect(tour.turnCount).toBe(18);
    expect(tour.decisionCount).toBe(18);
    // sessions.get is a lookup by key: the exact session, never one whose key merely contains it.
    const detail0 = getSession(ctx, TOUR_SESSION_ID);
    expect(detail0).toMatchObject({ id: TOUR_SESSION_ID, turnCount: 18, decisionCount: 18, excluded: false });
    expect(detail0.writeCount).toBe(all(`SELECT count(*) AS n FROM write_guardian_audit WHERE session_id = '${TOUR_SESSION_ID}'`)[0]!.n);
    expect(() => getSession(ctx, TOUR_SESSION_ID.slice(0, -1))).toThrow(/not found/);
    const page1 = listTurns(ctx, { sessionId: TOUR_SESSION_ID, limit: 10 });
    const page2 = listTurns(ctx, { sessionId: TOUR_SESSION_ID, limit: 10, cursor: page1.nextCursor! });
    expect([...page1.items, ...page2.items].map((t) => t.turnNumber)).toEqual(Array.from({ length: 18 }, (_, i) => i));
    expect(page2.nextCursor).toBeNull();
    const withWrite = page1.items.find((t) => t.writes.length > 0)!;
    expect(withWrite.decisions[0]!.decision).not.toBe('NO_WRITE');
    expect(withWrite.writes[0]!.decisionId).toBe(withWrite.decisions[0]!.id);
    const detail = getTurn(ctx, withWrite.id);
    expect(detail.context.length).toBeGreaterThan(0);
    expect(detail.decisions.length).toBe(1);
    expect(detail.turn.id).toBe(withWrite.id);
    expect(() => listTurns(ctx, { sessionId: 'nope' })).toThrow(/not found/);
  });

  it('finds a Chinese phrase with match offsets, falls back to a bounded scan for short queries, and never errors on FTS syntax', () => {
    const r = search(ctx, { text: '早上偏好', limit: 5 });
    expect(r.mode).toBe('fts');
    expect(r.items.length).toBeGreaterThan(0);
    for (const h of r.items) {
      const [start, end] = h.matches[0]!;
      expect(h.text.slice(start, end)).toBe('早上偏好');
    }
    const short = search(ctx, { text: '咖啡', limit: 5 });
    expect(short.mode).toBe('scan');
    expect(short.items.length).toBeGreaterThan(0);
    expect(short.items[0]!.text).toContain('咖啡');
    expect(search(ctx, { text: '早上偏好', kinds: ['decision'] }).items.every((h) => h.kind === 'decision')).toBe(true);
    for (const q of ['"', 'AND', 'NEAR(a b', '*', 'user_message_content:x', "'; DROP TABLE sessions; --", '(((']) {
      expect(() => search(ctx, { text: q }), q).not.toThrow();
    }
    const hostile = search(ctx, { text: 'onerror=alert', limit: 5 });
    expect(hostile.items[0]!.text).toContain('<img src=x onerror=alert(1)>');
    expect(() => search(ctx, { text: '   ' })).toThrow(/text/);
  });

  it('summarizes totals, decisions per day by type and write outcomes by status', () => {
    const o = statsOverview(ctx, { days: 365 });
    expect(o.totals.turns).toBe(all('SELECT count(*) AS n FROM conversation_turns')[0]!.n);
    expect(o.decisionsPerDay.reduce((n, d) => n + d.total, 0)).toBe(o.totals.decisions);
    expect(o.writeOutcomes.reduce((n, w) => n + w.count, 0)).toBe(o.totals.writes);
    expect(o.writeOutcomes.find((w) => w.status === 'written')!.count).toBeGreaterThan(0);
  });
});
