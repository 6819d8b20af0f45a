import fs from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import {
  collectSamples,
  datasetStats,
  getSample,
  listSamples,
  qualityReport,
  reviewSample,
  setPiiSpanDecision,
  undoLastReview,
  type MemoryGatePositiveSample,
} from '../../src/core/dataset';
import { repoRoot } from '../helpers/workspace';
import { PII, S, buildFixture } from './fixture';

const cli = path.join(repoRoot, 'bin', 'reflection.cjs');

describe('dataset review', () => {
  it('lists with filters and keyset pages that neither skip nor repeat', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, { autoApprove: true });
    const all = listSamples(f.ctx, { limit: 1000 }).items;
    expect(all.length).toBe(31);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listSamples(f.ctx, { limit: 4, cursor });
      seen.push(...page.items.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.map((s) => s.id));
    const review = listSamples(f.ctx, { needsReview: true, limit: 100 }).items;
    expect(review.length).toBeGreaterThan(0);
    expect(review.every((s) => s.annotationStatus === 'needs_review')).toBe(true);
    expect(listSamples(f.ctx, { type: 'memory_gate_negative', limit: 100 }).items.length).toBe(5);
    expect(listSamples(f.ctx, { qualityAbove: 0.9, limit: 100 }).items.every((s) => s.qualityScore! >= 0.9)).toBe(true);
    expect(() => listSamples(f.ctx, { status: 'done' as never })).toThrow(/status must be one of/);
    expect(() => listSamples(f.ctx, { cursor: 'garbage' })).toThrow(/cursor/);
    const plan = f.db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT id FROM dataset_samples WHERE annotation_status = 'needs_review' ORDER BY created_at DESC, id DESC LIMIT 5",
      )
      .all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX idx_samples_status_created/);
  });

  it('saves review actions at once and undoes them, one by one, after the database is reopened', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, {});
    const [a, b] = listSamples(f.ctx, { type: 'memory_gate_positive', limit: 2 }).items;
    if (!a || !b) throw new Error('the fixture has at least two positives');
    const approved = await reviewSample(f.ctx, { sampleId: a.id, action: 'approve', notes: 'good sample' });
    expect(approved).toMatchObject({ annotationStatus: 'approved', annotatedBy: 'tester', annotationNotes: 'good sample' });
    const edited = await reviewSample(f.ctx, {
      sampleId: b.id,
      action: 'edit',
      content: { ...(b.content as MemoryGatePositiveSample), correctFact: `mail me at ${PII.email}` },
    });
    expect(edited.containsPii).toBe(true);
    expect(JSON.stringify(edited.piiRedactedContent)).not.toContain(PII.email);
    await reviewSample(f.ctx, { sampleId: b.id, action: 'reject' });
    f.db.close();

    const db = openWorkspaceDatabase(f.ws).db;
    const ctx = { ...f.ctx, db };
    expect(undoLastReview(ctx)).toMatchObject({ sampleId: b.id, action: 'reject' });
    expect(getSample(ctx, b.id).annotationStatus).toBe(b.annotationStatus);
    const undoEdit = undoLastReview(ctx);
    expect(undoEdit.action).toBe('edit');
    expect(undoEdit.sample.content).toEqual(b.content);
    expect(undoEdit.sample.containsPii).toBe(b.containsPii);
    expect(undoEdit.sample.fingerprint).toBe(b.fingerprint);
    const undoApprove = undoLastReview(ctx);
    expect(undoApprove.sample).toMatchObject({ annotationStatus: a.annotationStatus, annotationNotes: null, annotatedBy: null });
    expect(() => undoLastReview(ctx)).toThrow(/no review action to undo/);
    await expect(reviewSample(ctx, { sampleId: 'nope', action: 'approve' })).rejects.toThrow(/not found/);
    await expect(reviewSample(ctx, { sampleId: a.id, action: 'edit', content: { type: 'annotated_turn' } as never })).rejects.toThrow(
      /content.type must stay/,
    );
    db.close();
  });

  it('accepts or rejects one PII span and recomputes the redacted content (undoable)', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, {});
    const id = f.db
      .prepare('SELECT id FROM dataset_samples WHERE source_key = ?')
      .pluck()
      .get(
        `neg:corr:${f.db.prepare('SELECT id FROM behavior_corrections WHERE audit_id = ?').pluck().get(f.ids.carol0.auditId)}`,
      ) as string;
    const s = getSample(f.ctx, id);
    const phone = s.piiSpans.find((p) => p.type === 'PHONE')!;
    expect(JSON.stringify(s.piiRedactedContent)).not.toContain(PII.mobile);
    const after = setPiiSpanDecision(f.ctx, { sampleId: id, spanId: phone.id, accepted: false });
    expect(after.piiSpans.find((p) => p.id === phone.id)!.accepted).toBe(false);
    const text = JSON.stringify(after.piiRedactedContent);
    expect(text).toContain(PII.mobile);
    expect(text).not.toContain(PII.email);
    expect(text).toContain('[EMAIL_1]');
    const undone = undoLastReview(f.ctx);
    expect(undone.action).toBe('pii_decision');
    expect(JSON.stringify(undone.sample.piiRedactedContent)).not.toContain(PII.mobile);
    expect(() => setPiiSpanDecision(f.ctx, { sampleId: id, spanId: 'nope', accepted: false })).toThrow(/no PII span/);
  });

  it('reports stats and the quality report', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, { autoApprove: true });
    const stats = datasetStats(f.ctx);
    expect(stats.total).toBe(31);
    expect(stats.byType.find((t) => t.sampleType === 'memory_gate_negative')!.count).toBe(5);
    expect(Object.values(stats.byStatus).reduce((a, n) => a + (n ?? 0), 0)).toBe(31);
    expect(stats.reviewed).toBe(31 - (stats.byStatus.pending ?? 0) - (stats.byStatus.needs_review ?? 0));
    expect(stats.reviewed).toBeGreaterThan(0);
    expect(stats.qualityDistribution.reduce((a, b) => a + b.count, 0)).toBe(31);
    expect(stats.clusters).toBeLessThan(31);
    expect(stats.daily[0]!.date).toBe('2026-03-01');
    const report = qualityReport(f.ctx, { weakest: 3 });
    expect(report.factors.map((x) => x.factor)).toEqual(['score', 'conversationClarity', 'decisionConfidence', 'factVerifiability']);
    for (const x of report.factors) expect(x.histogram.reduce((a, b) => a + b, 0)).toBe(31);
    expect(report.weakest.length).toBe(3);
    expect(report.weakest[0]!.qualityScore!).toBeLessThanOrEqual(report.weakest[2]!.qualityScore!);
  });

  it('CLI: collect, interactive review from piped lines, approve, stats and export', async () => {
    const f = await buildFixture();
    f.db.close();
    const run = (args: string[], input?: string) =>
      spawnSync(process.execPath, [cli, 'dataset', ...args, '-w', f.ws], { input, encoding: 'utf8', timeout: 60_000 });
    const collected = run(['collect', '--auto-approve', '--json']);
    expect(collected.status).toBe(0);
    expect(JSON.parse(collected.stdout).addedTotal).toBe(31);
    const pending = JSON.parse(run(['list', '--needs-review', '--json', '-l', '100']).stdout).items as { id: string }[];
    const review = run(['review'], 'a\nr\nx\ns\nq\n');
    expect(review.status).toBe(0);
    expect(review.stdout).toContain('approved 1, rejected 1, skipped 1');
    const db = openWorkspaceDatabase(f.ws).db;
    const status = (id: string) => db.prepare('SELECT annotation_status FROM dataset_samples WHERE id = ?').pluck().get(id);
    expect(status(pending[0]!.id)).toBe('approved');
    expect(status(pending[1]!.id)).toBe('rejected');
    expect(status(pending[2]!.id)).toBe('needs_review');
    db.close();
    expect(run(['reject', pending[2]!.id, '--notes', 'not useful']).stdout).toContain('rejected');
    const bad = run(['list', '--quality-above', '3']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--quality-above');
    const stats = JSON.parse(execFileSync(process.execPath, [cli, 'dataset', 'stats', '--json', '-w', f.ws], { encoding: 'utf8' }));
    expect(stats.byStatus.rejected).toBe(2);
    const out = path.join(f.ws, 'out');
    const exported = JSON.parse(run(['export', '--format', 'sharegpt', '-o', out, '--json']).stdout);
    const names = exported.files.map((x: { name: string }) => x.name) as string[];
    expect(names).toContain('sharegpt.train.jsonl');
    expect(names).toEqual(expect.arrayContaining(['dataset_info.json', 'README.md']));
    for (const name of names) expect(fs.statSync(path.join(out, name)).size).toBeGreaterThan(0);
    expect(exported.total).toBeGreaterThan(0);
    expect(S.alice).toBeTruthy();
  });
});
