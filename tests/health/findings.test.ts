import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import type { ServiceContext } from '../../src/core/context';
import { blameFile } from '../../src/core/health/blame';
import { listFindings, scanMemoryHealth } from '../../src/core/health/findings';
import { REMOVED_MARK, removeSecretsOfWrite, resolveFinding } from '../../src/core/health/resolve';
import { flagsForAudits } from '../../src/core/health/secrets';
import { verifyChains } from '../../src/core/health/verify';
import { withMemoryFileLock } from '../../src/core/files/memoryFiles';
import { tempWorkspace } from '../helpers/workspace';
import { evaluateConflictPairs } from './conflictEval';

function demo(): ServiceContext {
  const dir = tempWorkspace();
  generateDemoWorkspace(dir);
  const { db } = openWorkspaceDatabase(dir);
  return { db, workspaceDir: dir, actor: 'tester' };
}

const userLines = (ctx: ServiceContext) => fs.readFileSync(path.join(ctx.workspaceDir, 'USER.md'), 'utf8').split('\n');

describe('contradictions and duplicates in the demo memory', () => {
  it('reports the conflicting phone, coffee and location lines, and a re-scan adds nothing', () => {
    const ctx = demo();
    const scan = scanMemoryHealth(ctx);
    const contradictions = scan.open.filter((f) => f.kind === 'contradiction');
    const byAttr = (a: string) => contradictions.filter((f) => f.attribute === a && f.detail.lines.every((l) => l.fileName === 'USER.md'));
    const phone = byAttr('phone');
    expect(phone).toHaveLength(1);
    expect(phone[0]!.detail.lines.length).toBeGreaterThanOrEqual(2);
    expect(phone[0]!.detail.lines.every((l) => /phone for urgent issues/.test(l.text))).toBe(true);
    expect(byAttr('preference').some((f) => f.detail.lines.every((l) => /coffee/.test(l.text)))).toBe(true);
    const location = byAttr('location');
    expect(location.flatMap((f) => f.detail.lines.map((l) => l.text)).join('\n')).toMatch(/Berlin[\s\S]*Lisbon|Lisbon[\s\S]*Berlin/);
    // Lines in the file are where the finding says.
    for (const l of phone[0]!.detail.lines) expect(userLines(ctx)[l.line - 1]).toBe(l.text);
    expect(scanMemoryHealth(ctx).added).toBe(0);
    ctx.db.close();
  });

  it('keeping one phone line writes the file as a curator write and corrects the writes of the stale ones', async () => {
    const ctx = demo();
    const phone = scanMemoryHealth(ctx).open.find((f) => f.attribute === 'phone')!;
    const stale = phone.detail.lines.slice(1);
    const staleWriters = stale.map((l) => blameFile(ctx, { file: 'USER.md', line: l.line }).lines[0]!.write!.auditId);
    const { finding, changes } = await resolveFinding(ctx, { id: phone.id, action: 'keep', keep: 0 });
    expect(finding.status).toBe('resolved');
    const text = userLines(ctx).join('\n');
    expect(text).toContain(phone.detail.lines[0]!.text);
    for (const l of stale) expect(text).not.toContain(l.text);
    expect(changes).toHaveLength(1);
    const write = ctx.db
      .prepare('SELECT source, status, related_audit_id FROM write_guardian_audit WHERE id = ?')
      .get(changes[0]!.retryAuditId) as { source: string; status: string };
    expect(write).toMatchObject({ source: 'retry', status: 'written' });
    const corrections = ctx.db
      .prepare(
        'SELECT audit_id, corrected_status, corrected_candidate_fact, retry_audit_id FROM behavior_corrections WHERE retry_audit_id = ?',
      )
      .all(changes[0]!.retryAuditId) as Array<{ audit_id: string; corrected_candidate_fact: string }>;
    expect(corrections.map((c) => c.audit_id).sort()).toEqual([...new Set(staleWriters)].sort());
    expect(corrections[0]!.corrected_candidate_fact).toContain('phone for urgent issues');
    // The kept line is now attributed to its original write, the file's newest version to the curator write.
    expect(blameFile(ctx, { file: 'USER.md' }).headSeq).toBeGreaterThan(1);
    expect(await resolveFinding(ctx, { id: phone.id, action: 'dismiss' }).catch((e) => e.kind)).toBe('Conflict');
    expect(verifyChains(ctx).ok).toBe(true);
    ctx.db.close();
  });

  it('edits the file under its lock, so a write made while it waited is kept', async () => {
    const ctx = demo();
    const phone = scanMemoryHealth(ctx).open.find((f) => f.attribute === 'phone')!;
    let release!: () => void;
    let taken!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const lockTaken = new Promise<void>((r) => (taken = r));
    // the plugin holds the lock first and writes under it, as the real plugin does
    const plugin = withMemoryFileLock(ctx.workspaceDir, 'USER.md', async () => {
      taken();
      await held;
      fs.appendFileSync(path.join(ctx.workspaceDir, 'USER.md'), '- written by the plugin while the curator waited\n');
    });
    await lockTaken;
    const resolving = resolveFinding(ctx, { id: phone.id, action: 'keep', keep: 0 });
    await new Promise((r) => setTimeout(r, 300));
    release();
    await plugin;
    await resolving;
    const text = userLines(ctx).join('\n');
    expect(text).toContain('- written by the plugin while the curator waited');
    expect(text.split('\n').filter((l) => /phone for urgent issues/.test(l))).toHaveLength(1);
    ctx.db.close();
  });

  it('merging and dismissing close the finding with the right status', async () => {
    const ctx = demo();
    const open = scanMemoryHealth(ctx).open;
    const coffee = open.find((f) => f.attribute === 'preference' && /coffee/.test(f.detail.lines[0]?.text ?? ''))!;
    const merged = await resolveFinding(ctx, {
      id: coffee.id,
      action: 'merge',
      text: 'User no longer drinks coffee; prefers chai latte in the morning.',
    });
    expect(merged.finding.status).toBe('merged');
    expect(userLines(ctx).filter((l) => /no longer drinks coffee/.test(l))).toEqual([
      '- User no longer drinks coffee; prefers chai latte in the morning.',
    ]);
    const other = open.find((f) => f.id !== coffee.id && f.kind !== 'secret')!;
    expect((await resolveFinding(ctx, { id: other.id, action: 'dismiss', reason: 'both true' })).finding.status).toBe('dismissed');
    await expect(resolveFinding(ctx, { id: 'nope', action: 'dismiss' })).rejects.toThrow(/not found/);
    ctx.db.close();
  });
});

describe('secrets and personal data in memory', () => {
  it('flags writes that stored personal data as they arrive, and removes the values in one action', async () => {
    const ctx = demo();
    const email = /[\w.]+@example\.com/.exec(userLines(ctx).join('\n'))![0];
    const line = userLines(ctx).findIndex((l) => l.includes(email)) + 1;
    const writer = blameFile(ctx, { file: 'USER.md', line }).lines[0]!.write!.auditId;
    expect(flagsForAudits(ctx.db, [writer]).get(writer)?.kinds).toContain('EMAIL');
    const secretFinding = scanMemoryHealth(ctx).open.find((f) => f.kind === 'secret' && f.detail.lines[0]?.text.includes(email));
    expect(secretFinding?.attribute).toBe('EMAIL');
    const change = await removeSecretsOfWrite(ctx, { auditId: writer });
    const now = userLines(ctx).join('\n');
    expect(now).not.toContain(email);
    expect(now).toContain(REMOVED_MARK);
    const correction = ctx.db
      .prepare('SELECT corrected_status, apply_to_future, correction_pattern FROM behavior_corrections WHERE audit_id = ?')
      .get(writer) as { corrected_status: string; apply_to_future: number; correction_pattern: string };
    expect(correction).toMatchObject({ corrected_status: 'refused', apply_to_future: 1 });
    expect(correction.correction_pattern).toContain('<EMAIL>');
    expect(correction.correction_pattern).not.toContain(email);
    expect(change.correctionIds).toHaveLength(1);
    const curatorFact = ctx.db
      .prepare('SELECT candidate_fact FROM write_guardian_audit WHERE id = ?')
      .pluck()
      .get(change.retryAuditId) as string;
    expect(curatorFact).toContain(REMOVED_MARK);
    expect(curatorFact).not.toContain(email);
    expect(listFindings(ctx, { status: 'open', kind: 'secret' }).some((f) => f.id === secretFinding!.id)).toBe(false);
    ctx.db.close();
  });
});

describe('the labelled pair set', () => {
  it('has at least 100 EN and ZH pairs and the finder keeps precision and recall up', () => {
    const r = evaluateConflictPairs();
    expect(r.pairs).toBeGreaterThanOrEqual(100);
    expect(r.zh).toBeGreaterThanOrEqual(30);
    for (const s of r.scores) {
      expect(s.precision, s.label).toBeGreaterThanOrEqual(0.85);
      expect(s.recall, s.label).toBeGreaterThanOrEqual(0.8);
    }
  });
});
