// Migration 0179 rebuilds dataset_samples with cheaper CHECKs (issue 16): the IN lists become OR chains
// (an IN list of more than two constants built an ephemeral index on every insert) and the json_valid
// checks go. Real rows, collected from a recorded workspace, must come through with their rowids; the
// CHECKs must accept and refuse the same values; and since SQLite no longer checks the JSON columns,
// the app's own writes (collection, review edits, PII decisions, undo) must leave valid JSON in them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestVersion } from '../../src/core/db/migrate';
import { dbPathFor } from '../../src/core/db/connection';
import {
  collectSamples,
  listSamples,
  reviewSample,
  setPiiSpanDecision,
  undoLastReview,
  type MemoryGatePositiveSample,
} from '../../src/core/dataset';
import { emptyDatabase, explain, getTableData, insertData, insertKnownColumns, updateToVersion } from '../helpers/db';
import { collectedRows } from '../helpers/collectedRows';
import { PII, buildFixture } from '../dataset/fixture';

type Row = Record<string, unknown>;

const JSON_COLUMNS = ['content', 'quality_factors', 'pii_redacted_content', 'pii_spans', 'feedback_signals', 'labels'];

describe('migration 0179: a leaner dataset_samples', () => {
  it('keeps every collected row, its rowid, the indexes, the view and the foreign keys', async () => {
    const rows = await collectedRows(240);
    expect(rows.dataset_samples!.length).toBeGreaterThan(400);
    // the copy covers what the JSON and nullable columns hold in practice
    for (const c of ['pii_spans', 'pii_redacted_content', 'feedback_signals', 'audit_id', 'correction_id'])
      expect(
        rows.dataset_samples!.some((s) => s[c] !== null),
        c,
      ).toBe(true);
    const { db, file } = emptyDatabase();
    updateToVersion(db, 177);
    for (const [table, r] of Object.entries(rows)) insertKnownColumns(db, table, r);
    // a gap in the rowids, as deletions leave: exports page by rowid, so the copy must keep them
    db.prepare('DELETE FROM dataset_samples WHERE rowid = 3').run();
    const indexesBefore = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'dataset_samples' ORDER BY rowid")
      .pluck()
      .all();
    const before = getTableData(db, 'dataset_samples');
    const rowidsBefore = db.prepare('SELECT rowid, id FROM dataset_samples ORDER BY rowid').all();

    // up to 0179 itself: 0181 later replaces the fingerprint index (its own test)
    const result = updateToVersion(db, 179, file);
    expect(result.applied).toContain('0179_samples_lean.sql');
    expect(getTableData(db, 'dataset_samples')).toEqual(before);
    expect(db.prepare('SELECT rowid, id FROM dataset_samples ORDER BY rowid').all()).toEqual(rowidsBefore);
    expect(
      db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'dataset_samples' ORDER BY rowid").pluck().all(),
    ).toEqual(indexesBefore);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const pending = before.filter((s) => s.annotation_status === 'needs_review').length;
    expect(db.prepare('SELECT count(*) FROM pending_review_samples').pluck().get()).toBe(pending);
    expect(explain(db, "SELECT id FROM dataset_samples WHERE annotation_status = 'needs_review' ORDER BY created_at LIMIT 50")).toMatch(
      /USING INDEX idx_samples_status_created/,
    );
    const sql = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'dataset_samples'").pluck().get() as string;
    expect(sql).not.toMatch(/json_valid\(|IN \('/);

    // the rebuilt table still refuses a missing parent and a row that deletes would leave dangling
    const sample = before[0]!;
    const copy = (over: Row) => ({
      ...sample,
      id: `copy-${Object.keys(over).join()}`,
      source_key: `copy:${Object.keys(over).join()}`,
      ...over,
    });
    expect(() => insertData(db, 'dataset_samples', [copy({ turn_id: 'no-such-turn' })])).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare('DELETE FROM conversation_turns WHERE id = ?').run(sample.turn_id)).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('accepts and refuses the same types and statuses as the IN lists did', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, latestVersion());
    db.exec(`INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('s1', 'c', 1, 1);`);
    const insert = db.prepare(
      "INSERT INTO dataset_samples (id, sample_type, session_id, content, annotation_status, source_key, created_at) VALUES (?, ?, 's1', '{}', ?, ?, 1)",
    );
    const types = ['memory_gate_positive', 'memory_gate_negative', 'write_guardian_decision', 'annotated_turn'];
    const statuses = ['pending', 'approved', 'rejected', 'needs_review', 'auto_approved'];
    let n = 0;
    for (const t of types) for (const s of statuses) insert.run(`ok${n}`, t, s, `k${n++}`);
    expect(db.prepare('SELECT count(*) FROM dataset_samples').pluck().get()).toBe(20);
    for (const [t, s] of [
      ['memory_gate', 'pending'],
      ['Annotated_Turn', 'pending'],
      ['annotated_turn', 'done'],
      ['annotated_turn', 'PENDING'],
      ['annotated_turn ', 'pending'],
    ]) {
      expect(() => insert.run(`bad${n}`, t, s, `k${n++}`), `${t} / ${s}`).toThrow(/CHECK constraint/);
    }
    expect(() => db.prepare("UPDATE dataset_samples SET annotation_status = 'done' WHERE id = 'ok0'").run()).toThrow(/CHECK constraint/);
    // the reason for the rewrite: an insert no longer builds an ephemeral index of a list per row
    const opcodes = db
      .prepare(
        "EXPLAIN INSERT INTO dataset_samples (id, sample_type, session_id, content, annotation_status, source_key, created_at) VALUES ('x', 'annotated_turn', 's1', '{}', 'pending', 'x', 1)",
      )
      .all() as { opcode: string; p4: unknown }[];
    expect(opcodes.filter((o) => o.opcode === 'OpenEphemeral')).toEqual([]);
    expect(opcodes.some((o) => String(o.p4).includes('json_valid'))).toBe(false);
    expect(opcodes.filter((o) => o.opcode === 'Halt' && String(o.p4).includes('sample_type')).length).toBe(1);
    db.close();
  });

  it("leaves valid JSON in every JSON column after the app's writes (the CHECKs no longer look)", async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, { autoApprove: true });
    const [a, b] = listSamples(f.ctx, { type: 'memory_gate_positive', limit: 2 }).items;
    if (!a || !b) throw new Error('the fixture has at least two positives');
    const edited = await reviewSample(f.ctx, {
      sampleId: a.id,
      action: 'edit',
      content: { ...(a.content as MemoryGatePositiveSample), correctFact: `mail me at ${PII.email} "quoted" \\ \u2028 end` },
    });
    expect(edited.containsPii).toBe(true);
    const span = edited.piiSpans[0];
    if (!span) throw new Error('the edit adds an e-mail address, so the sample has a span');
    setPiiSpanDecision(f.ctx, { sampleId: a.id, spanId: span.id, accepted: false });
    await reviewSample(f.ctx, { sampleId: b.id, action: 'reject', reason: 'off topic' });
    undoLastReview(f.ctx);

    const file = dbPathFor(f.ws);
    expect(fs.existsSync(file)).toBe(true);
    const counts = f.db
      .prepare(
        `SELECT count(*) AS n, ${JSON_COLUMNS.map((c) => `sum(${c} IS NOT NULL AND NOT json_valid(${c})) AS ${c}`).join(', ')} FROM dataset_samples`,
      )
      .get() as Record<string, number>;
    expect(counts.n).toBeGreaterThan(20);
    for (const c of JSON_COLUMNS) expect(counts[c], `${c} holds text that is not JSON (${path.basename(file)})`).toBe(0);
    // and the check itself sees a non-JSON value: the query above is not vacuous
    f.db.prepare("UPDATE dataset_samples SET labels = '{oops' WHERE id = ?").run(b.id);
    expect(f.db.prepare('SELECT count(*) FROM dataset_samples WHERE labels IS NOT NULL AND NOT json_valid(labels)').pluck().get()).toBe(1);
    f.db.close();
  });
});
