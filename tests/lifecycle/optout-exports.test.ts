import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { generateDemoWorkspace, TOUR_SESSION_ID } from '../../src/core/demo';
import { collectSamples } from '../../src/core/dataset/collect';
import { exportDataset } from '../../src/core/dataset/export';
import { exportDecisions } from '../../src/core/gate/export';
import { exportAudits } from '../../src/core/guardian/export';
import { exportConversations, runScheduledArchive } from '../../src/core/lifecycle/archive';
import { addExclusion } from '../../src/core/lifecycle/exclusions';
import { tempWorkspace } from '../helpers/workspace';

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('opt-out across collection and every export', () => {
  it('an excluded session never appears in collect, any dataset format, decision/audit exports or conversation archives', async () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 8, seed: 11 });
    const { db } = openWorkspaceDatabase(dir);
    const ctx = { db, workspaceDir: dir, now: () => Date.UTC(2026, 5, 1) };
    // Collected before the opt-out: those samples exist and must still never be exported.
    await collectSamples(ctx, {});
    const tourSamplesBefore = db
      .prepare('SELECT count(*) FROM dataset_samples WHERE session_id = ?')
      .pluck()
      .get(TOUR_SESSION_ID) as number;
    expect(tourSamplesBefore).toBeGreaterThan(0);
    db.prepare("UPDATE dataset_samples SET annotation_status = 'approved'").run();

    const tour = db.prepare('SELECT channel_id, conversation_target FROM sessions WHERE id = ?').get(TOUR_SESSION_ID) as {
      channel_id: string;
      conversation_target: string;
    };
    addExclusion(ctx, { kind: 'target', value: `${tour.channel_id}:${tour.conversation_target}`, reason: 'opted out' });
    // Text only the excluded session holds, to look for in every output.
    const own = (
      db
        .prepare(
          `SELECT user_message_content FROM conversation_turns t WHERE t.session_id = ?
        AND NOT EXISTS (SELECT 1 FROM conversation_turns o WHERE o.session_id <> t.session_id AND o.user_message_content = t.user_message_content)`,
        )
        .pluck()
        .all(TOUR_SESSION_ID) as string[]
    ).filter((t) => t.length > 12 && !/["\n\r\\]/.test(t));
    expect(own.length).toBeGreaterThan(2);
    const other = db
      .prepare(
        'SELECT user_message_content FROM conversation_turns WHERE session_id <> ? AND length(user_message_content) > 12 ORDER BY seq LIMIT 1',
      )
      .pluck()
      .get(TOUR_SESSION_ID) as string;

    // Collecting again adds nothing of it.
    await collectSamples(ctx, {});
    expect(db.prepare('SELECT count(*) FROM dataset_samples WHERE session_id = ?').pluck().get(TOUR_SESSION_ID)).toBe(tourSamplesBefore);

    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    for (const format of EXPORT_FORMATS) {
      await exportDataset(ctx, { format, outDir: path.join(out, `dataset-${format}`), onlyApproved: false });
    }
    await exportDecisions(ctx, { format: 'json', file: path.join(out, 'decisions.json') });
    await exportDecisions(ctx, { format: 'csv', file: path.join(out, 'decisions.csv') });
    for (const format of ['json', 'csv', 'markdown'] as const) {
      const stream = fs.createWriteStream(path.join(out, `audits.${format}`));
      await exportAudits(ctx, { format, includeContent: true }, stream);
      await new Promise<void>((resolve) => stream.end(resolve));
    }
    await exportConversations(ctx, { output: path.join(out, 'conversations.jsonl') });
    await runScheduledArchive(ctx, { retentionDays: 3650 });
    const archives = path.join(dir, '.openclaw-reflection', 'exports');

    const everything = [...filesUnder(out), ...filesUnder(archives)];
    expect(everything.length).toBeGreaterThan(EXPORT_FORMATS.length + 5);
    let sawOther = false;
    for (const file of everything) {
      const text = fs.readFileSync(file, 'utf8');
      expect(text.includes(TOUR_SESSION_ID), `${path.relative(dir, file)} names the excluded session`).toBe(false);
      for (const t of own) expect(text.includes(t), `${path.relative(dir, file)} holds excluded text "${t}"`).toBe(false);
      if (text.includes(other)) sawOther = true;
    }
    expect(sawOther).toBe(true); // the exports do carry the other sessions' conversations
    db.close();
  }, 120_000);
});
