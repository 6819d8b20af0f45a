import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import {
  GATE_INSTRUCTION,
  GUARDIAN_INSTRUCTION,
  collectSamples,
  exportDataset,
  exportSelectionCounts,
  previewExport,
  type ExportResult,
} from '../../src/core/dataset';
import { exportPages } from '../../src/core/dataset/export';
import { planExport, resolveExport } from '../../src/core/dataset/exportPlan';
import { addExclusion, listExclusions, removeExclusion } from '../../src/core/lifecycle/exclusions';
import { tempWorkspace } from '../helpers/workspace';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { BASE, PII, S, buildFixture, type Fixture } from './fixture';
import { readJsonl, validateChatExamples, validatePreferenceExamples } from './openaiValidator';

let f: Fixture;
const out = (name: string) => path.join(tempWorkspace('reflection-export-'), name);
const lines = (file: string) => readJsonl(fs.readFileSync(file, 'utf8')) as Record<string, unknown>[];
const dataFiles = (r: ExportResult) => r.files.filter((x) => /\.(train|validation)\.(jsonl|csv)$/.test(x.name));
const both = (r: ExportResult) => dataFiles(r).flatMap((x) => lines(x.path));
/** Everything reviewed and any quality: tests of the formats themselves, not of the selection. */
const ALL = { includeUnreviewed: true, includeBelowQuality: true } as const;

beforeAll(async () => {
  f = await buildFixture();
  await collectSamples(f.ctx, { autoApprove: true });
});

describe('dataset export', () => {
  it('writes the seed Alpaca example exactly; a negative and a NO_WRITE teach their decision', async () => {
    const r = await exportDataset(f.ctx, { format: 'alpaca', outDir: out('alpaca'), trainSplit: 1, ...ALL });
    expect(dataFiles(r).map((x) => x.name)).toEqual(['alpaca.train.jsonl']);
    const records = lines(r.files[0]!.path);
    expect(records).toContainEqual({
      instruction: 'Based on the following conversation, decide if this should be written to memory and which file it belongs to.',
      input: "User: I prefer morning check-ins\nAgent: I'll remember that you prefer morning check-ins.",
      output:
        'Decision: UPDATE_USER\nFact: prefers morning check-ins\nReason: This is a stable user preference about collaboration cadence.',
    });
    expect(records).toContainEqual({
      instruction: expect.any(String),
      input: expect.stringContaining('Use this API key for the deploy: [API_KEY_1]'),
      output: 'Decision: NO_WRITE\nReason: Secrets must not be stored in memory files.',
    });
    expect(records).toContainEqual(
      expect.objectContaining({ input: expect.stringContaining('Thanks, perfect!'), output: 'Decision: NO_WRITE\nReason: Small talk.' }),
    );
    for (const rec of records) expect(Object.keys(rec).sort()).toEqual(['input', 'instruction', 'output']);
  });

  it('ShareGPT trains the decision: instruction in system, conversation as the human turn, decision as gpt', async () => {
    const r = await exportDataset(f.ctx, { format: 'sharegpt', outDir: out('sharegpt'), ...ALL });
    const records = both(r) as { system: string; conversations: Record<string, string>[] }[];
    expect(records).toContainEqual({
      system: 'Based on the following conversation, decide if this should be written to memory and which file it belongs to.',
      conversations: [
        { from: 'human', value: "User: I prefer morning check-ins\nAgent: I'll remember that you prefer morning check-ins." },
        {
          from: 'gpt',
          value:
            'Decision: UPDATE_USER\nFact: prefers morning check-ins\nReason: This is a stable user preference about collaboration cadence.',
          memory_gate_decision: 'UPDATE_USER',
          candidate_fact: 'prefers morning check-ins',
        },
      ],
    });
    for (const rec of records) {
      expect(rec.conversations.map((t) => t.from)).toEqual(['human', 'gpt']);
      expect(rec.conversations[1]!.value).toMatch(/^(Decision: |Action: )/);
    }
    const info = JSON.parse(fs.readFileSync(path.join(r.outDir, 'dataset_info.json'), 'utf8'));
    expect(info.reflection_sharegpt_train).toEqual({
      file_name: 'sharegpt.train.jsonl',
      formatting: 'sharegpt',
      columns: { messages: 'conversations', system: 'system' },
      tags: { role_tag: 'from', content_tag: 'value', user_tag: 'human', assistant_tag: 'gpt' },
    });
  });

  it('passes every OpenAI cookbook check, for chat and preference exports', async () => {
    const chat = await exportDataset(f.ctx, { format: 'openai', outDir: out('openai'), ...ALL });
    expect(chat.total).toBeGreaterThan(0);
    for (const file of dataFiles(chat)) expect(validateChatExamples(lines(file.path))).toEqual({});
    expect(both(chat)).toContainEqual({
      messages: [
        {
          role: 'system',
          content: 'Based on the following conversation, decide if this should be written to memory and which file it belongs to.',
        },
        { role: 'user', content: "User: I prefer morning check-ins\nAgent: I'll remember that you prefer morning check-ins." },
        {
          role: 'assistant',
          content:
            'Decision: UPDATE_USER\nFact: prefers morning check-ins\nReason: This is a stable user preference about collaboration cadence.',
        },
      ],
    });
    expect(chat.tokenWarnings.count).toBe(0);
    expect(chat.summary.tokens).toMatchObject({ model: 'gpt-4o-mini', encoding: 'o200k_base', limit: 65_536 });

    const dpo = await exportDataset(f.ctx, { format: 'openai-dpo', outDir: out('dpo'), trainSplit: 1, ...ALL });
    const pairs = lines(dpo.files[0]!.path) as Record<
      string,
      { messages?: { content: string }[]; content?: string }[] & { messages: { content: string }[] }
    >[];
    expect(validatePreferenceExamples(pairs)).toEqual({});
    const hank = pairs.find((p) => JSON.stringify(p).includes('jasmine')) as unknown as Record<string, { content: string }[]>;
    expect(hank.preferred_output![0]!.content).toBe(
      'Decision: UPDATE_USER\nFact: User likes jasmine green tea\nReason: It is about the user, and the fact should say what they like.',
    );
    expect(hank.non_preferred_output![0]!.content).toBe(
      'Decision: UPDATE_MEMORY\nFact: Hank drinks tea\nReason: A drink preference of the user.',
    );
    // carol's write was corrected to refused: a gate pair on the gate prompt and a guardian pair on the guardian prompt
    const prompts = pairs.map((p) => (p as unknown as { input: { messages: { content: string }[] } }).input.messages[0]!.content);
    expect(prompts).toContain(GATE_INSTRUCTION);
    expect(prompts).toContain(GUARDIAN_INSTRUCTION);
    for (const p of pairs as unknown as { preferred_output: { content: string }[]; non_preferred_output: { content: string }[] }[]) {
      expect(p.preferred_output[0]!.content.toLowerCase()).not.toBe(p.non_preferred_output[0]!.content.toLowerCase());
    }
    expect(validateChatExamples([{ messages: [{ role: 'user', content: '' }] }, 'x'])).toEqual({
      missing_content: 1,
      example_missing_assistant_message: 1,
      data_type: 1,
    });
  });

  it('raw keeps the whole record: session, type, labels, quality factors', async () => {
    const r = await exportDataset(f.ctx, { format: 'raw', outDir: out('raw'), ...ALL });
    const records = both(r);
    const alice = records.find(
      (x) => x.sessionId === S.alice && x.sampleType === 'memory_gate_positive' && x.decisionId === f.ids.alice0.decisionId,
    )!;
    expect(alice).toMatchObject({
      sampleType: 'memory_gate_positive',
      sessionId: S.alice,
      annotationStatus: 'auto_approved',
      qualityFactors: { conversationClarity: 1, decisionConfidence: 0.95, factVerifiability: 1 },
      labels: { evidence: 'guardian_agreed', autoApproveReasons: ['highQualityScore'] },
      content: { type: 'memory_gate_positive', correctFact: 'prefers morning check-ins' },
    });
    // raw holds the annotated turns too (training formats do not)
    expect(records.some((x) => x.sampleType === 'annotated_turn')).toBe(true);
  });

  it('splits by session with a seed: no session on both sides, same seed same split', async () => {
    const a = await exportDataset(f.ctx, { format: 'raw', outDir: out('split-a'), trainSplit: 0.5, seed: 7, ...ALL });
    const [trainFile, validationFile] = dataFiles(a);
    if (!trainFile || !validationFile) throw new Error('expected a train and a validation file');
    const train = new Set(lines(trainFile.path).map((x) => x.sessionId));
    const validation = new Set(lines(validationFile.path).map((x) => x.sessionId));
    expect(train.size).toBeGreaterThan(0);
    expect(validation.size).toBeGreaterThan(0);
    for (const s of train) expect(validation.has(s)).toBe(false);
    const b = await exportDataset(f.ctx, { format: 'raw', outDir: out('split-b'), trainSplit: 0.5, seed: 7, ...ALL });
    expect(b.files[0]!.sha256).toBe(a.files[0]!.sha256);
    expect(a.train + a.validation).toBe(a.total);
  });

  it('without includePii no detected PII value appears in any exported byte; with it, the export says so', async () => {
    const spans = f.db.prepare('SELECT pii_spans FROM dataset_samples WHERE pii_spans IS NOT NULL').pluck().all() as string[];
    const values = new Set(spans.flatMap((s) => (JSON.parse(s) as { value: string }[]).map((x) => x.value)));
    expect(values.has(PII.email)).toBe(true);
    expect(values.has(PII.apiKey)).toBe(true);
    for (const format of EXPORT_FORMATS) {
      const r = await exportDataset(f.ctx, { format, outDir: out(`pii-${format}`), ...ALL });
      expect(r.includePii).toBe(false);
      for (const file of fs.readdirSync(r.outDir)) {
        const text = fs.readFileSync(path.join(r.outDir, file), 'utf8');
        for (const v of values) expect(text.includes(v), `${format}/${file} leaks ${v}`).toBe(false);
        for (const v of values) expect(text.includes(JSON.stringify(v).slice(1, -1))).toBe(false);
      }
    }
    const raw = await exportDataset(f.ctx, { format: 'raw', outDir: out('pii-included'), includePii: true, ...ALL });
    expect(
      both(raw)
        .map((x) => JSON.stringify(x))
        .join('\n'),
    ).toContain(PII.email);
    const row = f.db.prepare('SELECT include_pii FROM dataset_exports WHERE id = ?').get(raw.exportId) as { include_pii: number };
    expect(row.include_pii).toBe(1);
    expect(fs.readFileSync(path.join(raw.outDir, 'README.md'), 'utf8')).toContain('included as recorded');
  });

  it('pseudonymizes session keys that carry a phone number, unless includePii', async () => {
    const ws = tempWorkspace('reflection-export-session-');
    const db = openWorkspaceDatabase(ws).db;
    const rec = new RecorderCore(db);
    const sid = 'channel:whatsapp:+8613812345678';
    rec.upsertSession({ id: sid, channelId: 'whatsapp', conversationTarget: '+8613812345678', createdAt: BASE, lastActivityAt: BASE });
    const t = rec.insertTurn({
      sessionId: sid,
      userMessage: { content: 'I prefer tea to coffee in the morning.' },
      agentReply: { content: 'Tea it is.' },
      createdAt: BASE + 1,
    });
    const d = rec.insertDecision({
      turnId: t.id,
      sessionId: sid,
      decision: 'UPDATE_USER',
      candidateFact: 'prefers tea to coffee',
      reason: 'A stable preference.',
      llmCall: { model: 'm' },
      createdAt: BASE + 2,
    });
    rec.recordWrite({
      decisionId: d,
      turnId: t.id,
      sessionId: sid,
      targetFile: 'USER.md',
      candidateFact: 'prefers tea to coffee',
      before: '',
      after: '- prefers tea to coffee\n',
      status: 'written',
      createdAt: BASE + 3,
    });
    const ctx = { db, workspaceDir: ws };
    await collectSamples(ctx, {});
    for (const format of ['raw', 'csv', 'alpaca'] as const) {
      const r = await exportDataset(ctx, { format, outDir: path.join(ws, format), ...ALL });
      expect(r.total).toBe(format === 'alpaca' ? 2 : 3);
      for (const file of fs.readdirSync(r.outDir))
        expect(fs.readFileSync(path.join(r.outDir, file), 'utf8')).not.toContain('8613812345678');
    }
    const raw = await exportDataset(ctx, { format: 'raw', outDir: path.join(ws, 'raw-pii'), includePii: true, trainSplit: 1, ...ALL });
    expect(lines(raw.files[0]!.path)[0]!.sessionId).toBe(sid);
    db.close();
  });

  it('the default export holds only approved and auto-approved samples at or above the minimum quality, and says so', async () => {
    const r = await exportDataset(f.ctx, { format: 'raw', outDir: out('default') });
    const records = both(r);
    expect(records.length).toBeGreaterThan(0);
    for (const x of records) {
      expect(['approved', 'auto_approved']).toContain(x.annotationStatus);
      expect(x.qualityScore as number).toBeGreaterThanOrEqual(0.7);
    }
    const everything = await exportDataset(f.ctx, { format: 'raw', outDir: out('everything'), ...ALL });
    expect(everything.total).toBeGreaterThan(r.total);
    expect(r.summary.included).toMatchObject({ statuses: ['approved', 'auto_approved'], minQuality: 0.7 });
    const card = fs.readFileSync(path.join(r.outDir, 'README.md'), 'utf8');
    expect(card).toContain('- Included: approved, auto_approved samples with quality >= 0.7');
    const quality = await exportDataset(f.ctx, { format: 'raw', outDir: out('quality'), minQuality: 0.9, includeUnreviewed: true });
    expect(both(quality).every((x) => (x.qualityScore as number) >= 0.9)).toBe(true);
    // excluded sessions never leave
    expect(both(everything).some((x) => x.sessionId === S.frank)).toBe(false);
  });

  it('filters by conversation time: since and until split the samples exactly, and the counts agree', async () => {
    const all = both(await exportDataset(f.ctx, { format: 'raw', outDir: out('all-times'), ...ALL }));
    const times = all.map((x) => x.createdAt as number).sort((a, b) => a - b);
    const cut = times[Math.floor(times.length / 2)]!; // the fixture exports samples, so times is not empty
    const early = await exportDataset(f.ctx, { format: 'raw', outDir: out('early'), until: cut, ...ALL });
    const late = await exportDataset(f.ctx, { format: 'raw', outDir: out('late'), since: cut, ...ALL });
    expect(both(early).every((x) => (x.createdAt as number) < cut)).toBe(true);
    expect(both(late).every((x) => (x.createdAt as number) >= cut)).toBe(true);
    expect(early.total + late.total).toBe(all.length);
    expect(exportSelectionCounts(f.ctx, { format: 'raw', since: cut, ...ALL }).total).toBe(late.total);
    await expect(exportDataset(f.ctx, { format: 'raw', outDir: out('bad-range'), since: cut, until: cut })).rejects.toThrow(
      /since must be before until/,
    );
  });

  it('records the export with counts, checksums and its summary, and writes a card with licence and languages', async () => {
    const r = await exportDataset(f.ctx, { format: 'alpaca', outDir: out('record'), ...ALL });
    const row = f.db.prepare('SELECT * FROM dataset_exports WHERE id = ?').get(r.exportId) as Record<string, unknown>;
    expect(row).toMatchObject({
      export_format: 'alpaca',
      total_samples: r.total,
      train_samples: r.train,
      validation_samples: r.validation,
      include_pii: 0,
      file_path: r.outDir,
    });
    expect(JSON.parse(row.summary as string).balance).toEqual(r.summary.balance);
    const files = JSON.parse(row.files as string) as { name: string; bytes: number; sha256: string; downloadName: string | null }[];
    let size = 0;
    for (const file of files) {
      const buf = fs.readFileSync(path.join(r.outDir, file.name));
      expect(createHash('sha256').update(buf).digest('hex')).toBe(file.sha256);
      size += buf.length;
    }
    expect(row.file_size_bytes).toBe(size);
    const ws = path.basename(f.ws);
    expect(files.find((x) => x.name === 'alpaca.train.jsonl')!.downloadName).toBe(`${ws}-alpaca-2026-03-31.train.jsonl`);
    const card = fs.readFileSync(path.join(r.outDir, 'README.md'), 'utf8');
    expect(card).toContain('license: "other"\nlicense_name: "private-memory-data"\nlicense_link: "LICENSE.md"\n');
    expect(fs.existsSync(path.join(r.outDir, 'LICENSE.md'))).toBe(true);
    // the fixture talks English and Chinese (carol): both languages, detected
    expect(card).toMatch(/language:\n- en\n- zh\n/);
    expect(card).toContain(
      'configs:\n- config_name: alpaca\n  default: true\n  data_files:\n  - split: train\n    path: alpaca.train.jsonl\n  - split: validation\n    path: alpaca.validation.jsonl\n',
    );
    expect(card).toContain('## Label balance');
    expect(fs.readdirSync(r.outDir).some((x) => x.endsWith('.partial'))).toBe(false);
  });

  it('previewExport returns the first records exactly as written', async () => {
    const dir = out('preview');
    const preview = await previewExport(f.ctx, { format: 'openai', seed: 3, ...ALL }, 4);
    const r = await exportDataset(f.ctx, { format: 'openai', outDir: dir, seed: 3, ...ALL });
    const written = Object.fromEntries(
      dataFiles(r).map((x) => [x.name.includes('.train.') ? 'train' : 'validation', fs.readFileSync(x.path, 'utf8')]),
    );
    expect(preview.length).toBe(4);
    for (const p of preview) {
      expect(written[p.split]).toContain(p.text);
      expect(JSON.parse(p.text)).toEqual(p.record);
    }
    await expect(exportDataset(f.ctx, { format: 'xml' as never })).rejects.toThrow(/format must be one of/);
    await expect(exportDataset(f.ctx, { format: 'raw', trainSplit: 2 })).rejects.toThrow(/trainSplit/);
  });
});

describe('exclusions while an export reads', () => {
  it('reads every planned sample when nothing is excluded, and leaves a session excluded midway out of the later pages', async () => {
    const g = await buildFixture();
    await collectSamples(g.ctx, { autoApprove: true });
    for (const x of listExclusions(g.ctx)) removeExclusion(g.ctx, x.id);
    const r = resolveExport({ format: 'raw', ...ALL, pageSize: 1 });
    const plan = planExport(g.ctx, r);
    const pageSessions = async (onFirstPage?: () => void) => {
      const pages: string[][] = [];
      for await (const items of exportPages(g.ctx, r, plan)) {
        pages.push(items.map((x) => x.sample.sessionId));
        if (pages.length === 1) onFirstPage?.();
      }
      return pages;
    };
    const free = await pageSessions();
    expect(free.flat()).toHaveLength(plan.rowids.length);
    const first = free[0]![0]!;
    const later = free
      .slice(1)
      .flat()
      .find((s) => s !== first);
    if (!later) throw new Error('the fixture plans samples of one session only');
    const read = await pageSessions(() => addExclusion(g.ctx, { kind: 'session', value: later }));
    expect(read[0]).toEqual(free[0]);
    expect(read.slice(1).flat()).not.toContain(later);
    expect(read.flat()).toHaveLength(free.flat().filter((s) => s !== later).length);
  });
});
