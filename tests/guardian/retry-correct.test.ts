import { Writable } from 'node:stream';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  appendUnderCuratorSection,
  correctWrite,
  exportAudits,
  fileHistory,
  listAudits,
  listFutureCorrections,
  matchFutureCorrections,
  pruneSnapshots,
  retryWrite,
  showAudit,
} from '../../src/core/guardian';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { makeFixture } from './fixture';

function collect(): { out: Writable; text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(c, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  });
  return { out, text: () => chunks.join('') };
}

describe('retryWrite', () => {
  it('appends the corrected fact under the curator section of another file, linked to the original', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n- likes tea\n');
    recordExternalChanges(f.ctx);
    const wrong = f.pluginWrite('MEMORY.md', '# Memory\n- user is vegetarian\n', { fact: 'user is vegetarian' });
    const dry = await retryWrite(f.ctx, { auditId: wrong, file: 'USER.md', fact: 'is vegetarian', dryRun: true });
    expect(dry.proposedContent).toBe('# User\n- likes tea\n\n## Corrections by the curator\n\n- is vegetarian\n');
    expect(f.read('USER.md')).toBe('# User\n- likes tea\n');

    const r = await retryWrite(f.ctx, { auditId: wrong, file: 'USER.md', fact: 'is vegetarian' });
    expect(f.read('USER.md')).toBe(dry.proposedContent);
    const audit = f.db
      .prepare('SELECT source, related_audit_id, candidate_fact, target_file, diff FROM write_guardian_audit WHERE id = ?')
      .get(r.retryAuditId) as Record<string, string>;
    expect(audit).toMatchObject({ source: 'retry', related_audit_id: wrong, candidate_fact: 'is vegetarian', target_file: 'USER.md' });
    expect(audit.diff).toContain('+- is vegetarian');

    // A second fact goes into the same section; supplied content replaces the file as given.
    await retryWrite(f.ctx, { auditId: wrong, file: 'USER.md', fact: 'drinks no coffee' });
    expect(f.read('USER.md')).toBe('# User\n- likes tea\n\n## Corrections by the curator\n\n- is vegetarian\n- drinks no coffee\n');
    await retryWrite(f.ctx, { auditId: wrong, file: 'USER.md', content: '# User\n- edited in Monaco\n' });
    expect(f.read('USER.md')).toBe('# User\n- edited in Monaco\n');
    expect(
      fileHistory(f.ctx, { file: 'USER.md' })
        .items.slice(0, 3)
        .map((h) => h.source),
    ).toEqual(['retry', 'retry', 'retry']);
    expect(recordExternalChanges(f.ctx)).toEqual([]);
    f.close();
  });

  it('keeps a section followed by another heading in place', () => {
    const text = '# User\n\n## Corrections by the curator\n\n- one\n\n## Other\n- x\n';
    expect(appendUnderCuratorSection(text, 'two')).toBe('# User\n\n## Corrections by the curator\n\n- one\n- two\n\n## Other\n- x\n');
    expect(appendUnderCuratorSection(null, 'first')).toBe('## Corrections by the curator\n\n- first\n');
  });
});

describe('correctWrite', () => {
  it('stores a correction listed with the audit; apply-to-future corrections match later samples', async () => {
    const f = makeFixture();
    const id = f.pluginWrite('USER.md', '# User\n- 用户的密码是 hunter2\n', { fact: '用户的密码是 hunter2' });
    await expect(() => correctWrite(f.ctx, { auditId: id, status: 'refused', reason: '  ' })).toThrow(/reason/);
    const c = correctWrite(f.ctx, {
      auditId: id,
      status: 'refused',
      reason: 'never store passwords',
      applyToFuture: true,
      pattern: '用户的密码是',
    });
    expect(c).toMatchObject({ originalStatus: 'written', correctedStatus: 'refused', applyToFuture: true, originalTargetFile: 'USER.md' });
    expect(showAudit(f.ctx, id).corrections.map((x) => x.id)).toEqual([c.id]);
    correctWrite(f.ctx, { auditId: id, status: 'written', fact: 'x', reason: 'not for the future' });

    const future = listFutureCorrections(f.ctx);
    expect(future).toHaveLength(1);
    expect(future[0]).toMatchObject({ pattern: '用户的密码是', targetFile: 'USER.md', correctedStatus: 'refused' });
    expect(future[0]!.keywords).toContain('密码');
    expect(matchFutureCorrections(future, { text: '记住:用户的密码是 swordfish', targetFile: 'USER.md' })).toHaveLength(1);
    expect(matchFutureCorrections(future, { text: '用户喜欢喝茶', targetFile: 'USER.md' })).toHaveLength(0);
    expect(matchFutureCorrections(future, { text: '用户的密码是 x', targetFile: 'MEMORY.md' })).toHaveLength(0);
    f.close();
  });
});

describe('queries, export and retention', () => {
  it('pages audits and history by keyset without gaps or repeats', () => {
    const f = makeFixture();
    let content = '# Memory\n';
    for (let i = 0; i < 25; i++) f.pluginWrite('MEMORY.md', (content += `- fact ${i}\n`));
    f.pluginWrite('USER.md', '# User\n');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = fileHistory(f.ctx, { file: 'MEMORY.md', limit: 7, cursor });
      seen.push(...page.items.map((i) => i.auditId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(listAudits(f.ctx, { file: 'USER.md' }).items).toHaveLength(1);
    expect(listAudits(f.ctx, { limit: 5 }).nextCursor).not.toBeNull();
    expect(() => listAudits(f.ctx, { status: 'bogus' })).toThrow(/status bogus: expected one of/);
    const plan = f.db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT id FROM write_guardian_audit a WHERE a.target_file = 'USER.md' AND a.status IN ('written','rolled_back')
      AND (a.created_at < 5 OR (a.created_at = 5 AND a.rowid < 3)) ORDER BY a.created_at DESC, a.rowid DESC LIMIT 5`,
      )
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX idx_audit_file_time/);
    expect(plan.map((p) => p.detail).join(' ')).not.toMatch(/TEMP B-TREE/);
    f.close();
  });

  it('exports json, csv (formula-escaped) and markdown, skipping excluded sessions', async () => {
    const f = makeFixture();
    f.pluginWrite('USER.md', '# User\n- =HYPERLINK("x")\n', { fact: '=HYPERLINK("x")' });
    f.pluginWrite('USER.md', '# User\n- secret\n', { session: 'channel:test:private', fact: 'private fact' });
    f.db.prepare("INSERT INTO exclusions (id, kind, value, created_at) VALUES ('e1', 'session', 'channel:test:private', 1)").run();
    const j = collect();
    expect((await exportAudits(f.ctx, { format: 'json', includeContent: true }, j.out)).count).toBe(1);
    const parsed = JSON.parse(j.text());
    expect(parsed[0]).toMatchObject({ candidateFact: '=HYPERLINK("x")', afterContent: '# User\n- =HYPERLINK("x")\n' });
    const c = collect();
    await exportAudits(f.ctx, { format: 'csv' }, c.out);
    const rows = Papa.parse<string[]>(c.text().trim()).data;
    expect(rows[1]![rows[0]!.indexOf('candidateFact')]).toBe('\'=HYPERLINK("x")');
    const m = collect();
    await exportAudits(f.ctx, { format: 'markdown' }, m.out);
    expect(m.text()).toContain('```diff');
    expect(m.text()).not.toContain('private fact');
    f.pluginWrite('TOOLS.md', '# Tools\n- contact ops@example.com\n', { fact: 'contact ops@example.com' });
    const r = collect();
    // Redacted by default; personal data only when asked for.
    await exportAudits(f.ctx, { format: 'json', includeContent: true, file: 'TOOLS.md' }, r.out);
    expect(r.text()).not.toContain('ops@example.com');
    expect(JSON.parse(r.text())[0]).toMatchObject({ candidateFact: 'contact [EMAIL_1]', afterContent: '# Tools\n- contact [EMAIL_1]\n' });
    const raw = collect();
    await exportAudits(f.ctx, { format: 'json', includeContent: true, includePii: true, file: 'TOOLS.md' }, raw.out);
    expect(JSON.parse(raw.text())[0]).toMatchObject({ candidateFact: 'contact ops@example.com' });
    f.close();
  });

  it('prunes the oldest unreferenced snapshots and never a referenced one', () => {
    const f = makeFixture();
    const ins = f.db.prepare('INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES (?, ?, ?, ?, ?)');
    for (let i = 0; i < 10; i++) ins.run(`orphan${i}`, 'SOUL.md', `v${i}`, String(i).padStart(64, '0'), i);
    let content = '# Soul\n';
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(f.pluginWrite('SOUL.md', (content += `- ${i}\n`)));
    const total = f.db.prepare("SELECT count(*) FROM file_snapshots WHERE file_name = 'SOUL.md'").pluck().get() as number;
    const r = pruneSnapshots(f.ctx, { maxSnapshotsPerFile: 3 });
    const soul = r.files.find((x) => x.fileName === 'SOUL.md')!;
    expect(soul.deleted).toBe(10);
    expect(soul.kept).toBe(total - 10);
    const dangling = f.db
      .prepare(
        `SELECT count(*) FROM write_guardian_audit a WHERE (a.after_snapshot_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_snapshots s WHERE s.id = a.after_snapshot_id))
      OR (a.before_snapshot_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_snapshots s WHERE s.id = a.before_snapshot_id))`,
      )
      .pluck()
      .get();
    expect(dangling).toBe(0);
    f.close();
  });
});
