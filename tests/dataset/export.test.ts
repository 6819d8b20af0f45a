import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { collectSamples, exportDataset, exportSelectionCounts, previewExport, reviewSample, type ExportResult } from '../../src/main/services/dataset';
import { tempWorkspace } from '../helpers/workspace';
import { openWorkspaceDatabase } from '../../src/main/db/connection';
import { RecorderCore } from '../../src/main/recorder/recorder';
import { BASE, PII, S, buildFixture, type Fixture } from './fixture';
import { readJsonl, validateChatExamples, validatePreferenceExamples } from './openaiValidator';

let f: Fixture;
const out = (name: string) => path.join(tempWorkspace('reflection-export-'), name);
const lines = (file: string) => readJsonl(fs.readFileSync(file, 'utf8')) as Record<string, unknown>[];
const both = (r: ExportResult) => [...lines(r.files[0].path), ...lines(r.files[1].path)];

beforeAll(async () => {
  f = await buildFixture();
  await collectSamples(f.ctx, { autoApprove: true });
});

describe('dataset export', () => {
  it('writes the seed Alpaca example exactly', async () => {
    const r = await exportDataset(f.ctx, { format: 'alpaca', outDir: out('alpaca'), trainSplit: 1 });
    const records = lines(r.files[0].path);
    expect(records).toContainEqual({
      instruction: 'Based on the following conversation, decide if this should be written to memory and which file it belongs to.',
      input: "User: I prefer morning check-ins\nAgent: I'll remember that you prefer morning check-ins.",
      output: 'Decision: UPDATE_USER\nFact: prefers morning check-ins\nReason: This is a stable user preference about collaboration cadence.',
    });
    // a negative teaches the correct decision, with the reason it was wrong
    expect(records).toContainEqual({
      instruction: expect.any(String),
      input: expect.stringContaining('Use this API key for the deploy: [API_KEY_1]'),
      output: 'Decision: NO_WRITE\nReason: Secrets must not be stored in memory files.',
    });
    for (const rec of records) expect(Object.keys(rec).sort()).toEqual(['input', 'instruction', 'output']);
  });

  it('writes the seed ShareGPT example exactly, and every record keeps LLaMA-Factory role order', async () => {
    const r = await exportDataset(f.ctx, { format: 'sharegpt', outDir: out('sharegpt') });
    const records = both(r) as { conversations: { from: string; value: string }[] }[];
    expect(records).toContainEqual({
      conversations: [
        { from: 'human', value: 'I prefer morning check-ins' },
        { from: 'gpt', value: "I'll remember that.", memory_gate_decision: 'UPDATE_USER', candidate_fact: 'prefers morning check-ins' },
      ],
    });
    for (const rec of records) {
      const turns = rec.conversations;
      expect(turns.length % 2).toBe(0);
      turns.forEach((t, i) => expect(t.from).toBe(i % 2 === 0 ? 'human' : 'gpt'));
    }
    const info = JSON.parse(fs.readFileSync(path.join(r.outDir, 'dataset_info.json'), 'utf8'));
    expect(info.reflection_sharegpt_train).toEqual({
      file_name: 'train.jsonl',
      formatting: 'sharegpt',
      columns: { messages: 'conversations' },
      tags: { role_tag: 'from', content_tag: 'value', user_tag: 'human', assistant_tag: 'gpt', system_tag: 'system' },
    });
  });

  it('passes every OpenAI cookbook check, for chat and preference exports', async () => {
    const chat = await exportDataset(f.ctx, { format: 'openai', outDir: out('openai') });
    expect(chat.total).toBeGreaterThan(0);
    for (const file of chat.files.slice(0, 2)) expect(validateChatExamples(lines(file.path))).toEqual({});
    expect(both(chat)).toContainEqual({
      messages: [
        { role: 'system', content: 'Based on the following conversation, decide if this should be written to memory and which file it belongs to.' },
        { role: 'user', content: "User: I prefer morning check-ins\nAgent: I'll remember that you prefer morning check-ins." },
        { role: 'assistant', content: 'Decision: UPDATE_USER\nFact: prefers morning check-ins\nReason: This is a stable user preference about collaboration cadence.' },
      ],
    });
    expect(chat.tokenWarnings.count).toBe(0);

    const dpo = await exportDataset(f.ctx, { format: 'openai-dpo', outDir: out('dpo'), trainSplit: 1 });
    const pairs = lines(dpo.files[0].path);
    expect(pairs.length).toBe(2); // carol (refused) and hank (other fact and file)
    expect(validatePreferenceExamples(pairs)).toEqual({});
    const hank = pairs.find((p) => JSON.stringify(p).includes('jasmine')) as Record<string, { content: string }[]>;
    expect(hank.preferred_output[0].content).toBe(
      'Decision: UPDATE_USER\nFact: User likes jasmine green tea\nReason: It is about the user, and the fact should say what they like.',
    );
    expect(hank.non_preferred_output[0].content).toBe('Decision: UPDATE_MEMORY\nFact: Hank drinks tea\nReason: A drink preference of the user.');
    // the validator really fails bad data
    expect(validateChatExamples([{ messages: [{ role: 'user', content: '' }] }, 'x'])).toEqual({
      missing_content: 1, example_missing_assistant_message: 1, data_type: 1,
    });
  });

  it('raw keeps the whole record: session, type, labels, quality factors', async () => {
    const r = await exportDataset(f.ctx, { format: 'raw', outDir: out('raw') });
    const records = both(r);
    const alice = records.find((x) => x.sessionId === S.alice && x.sampleType === 'memory_gate_positive')!;
    expect(alice).toMatchObject({
      sampleType: 'memory_gate_positive',
      sessionId: S.alice,
      decisionId: f.ids.alice0.decisionId,
      annotationStatus: 'auto_approved',
      qualityFactors: { conversationClarity: 1, decisionConfidence: 0.95, factVerifiability: 1 },
      labels: { evidence: 'guardian_agreed', autoApproveReasons: ['highQualityScore'] },
      content: { type: 'memory_gate_positive', correctFact: 'prefers morning check-ins' },
    });
    expect(fs.readFileSync(r.files[0].path).subarray(0, 3).toString('hex')).not.toBe('efbbbf');
  });

  it('csv is RFC 4180 via papaparse, with an optional BOM, and neutralizes formulas', async () => {
    const g = await buildFixture();
    const rec = new RecorderCore(g.db);
    const evil = '=HYPERLINK("http://evil","x")';
    rec.upsertSession({ id: evil, channelId: 'web', createdAt: BASE, lastActivityAt: BASE });
    const t = rec.insertTurn({ sessionId: evil, userMessage: { content: '-2+3 is my lucky sum' }, agentReply: { content: '@noted' }, createdAt: BASE + 5 });
    const d = rec.insertDecision({ turnId: t.id, sessionId: evil, decision: 'UPDATE_USER', candidateFact: 'lucky sum', reason: 'r', llmCall: { model: 'm' }, createdAt: BASE + 6 });
    rec.recordWrite({ decisionId: d, turnId: t.id, sessionId: evil, targetFile: 'USER.md', candidateFact: 'lucky sum', before: '', after: '- lucky sum\n', status: 'written', createdAt: BASE + 7 });
    await collectSamples(g.ctx, {});
    const id = g.db.prepare('SELECT id FROM dataset_samples WHERE source_key = ?').pluck().get(`pos:${g.ids.alice0.decisionId}`) as string;
    const sample = (await import('../../src/main/services/dataset')).getSample(g.ctx, id);
    await reviewSample(g.ctx, { sampleId: id, action: 'edit', content: { ...sample.content, reason: '=HYPERLINK("http://evil")', correctFact: '+1 "quoted", and\nnewline' } as never });
    const r = await exportDataset(g.ctx, { format: 'csv', outDir: out('csv'), bom: true, trainSplit: 1 });
    const bytes = fs.readFileSync(r.files[0].path);
    expect(bytes.subarray(0, 3).toString('hex')).toBe('efbbbf');
    const text = bytes.toString('utf8').slice(1);
    expect(text).toContain('\r\n');
    const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const header = parsed.data[0];
    expect(header).toEqual(['id', 'session_id', 'sample_type', 'annotation_status', 'quality_score', 'conversation_clarity', 'decision_confidence', 'fact_verifiability', 'instruction', 'input', 'output', 'content', 'labels', 'created_at']);
    const row = parsed.data.find((x) => x[0] === id)!;
    expect(row[10]).toBe('Decision: UPDATE_USER\nFact: +1 "quoted", and\nnewline\nReason: =HYPERLINK("http://evil")');
    expect(JSON.parse(row[11]).reason).toBe('=HYPERLINK("http://evil")');
    // no cell starts with a formula character
    for (const r of parsed.data.slice(1)) for (const cell of r) expect(cell).not.toMatch(/^[=+\-@]/);
    expect(parsed.data.some((r) => r[1] === `'${evil}`)).toBe(true);
    const direct = await previewExport(g.ctx, { format: 'csv', trainSplit: 1 }, 50);
    const hostile = direct.find((p) => p.sampleId === id)!;
    expect(hostile.text.startsWith(`${id},`)).toBe(true);
  });

  it('splits by session with a seed: no session on both sides, same seed same split', async () => {
    const a = await exportDataset(f.ctx, { format: 'raw', outDir: out('split-a'), trainSplit: 0.5, seed: 7 });
    const train = new Set(lines(a.files[0].path).map((x) => x.sessionId));
    const validation = new Set(lines(a.files[1].path).map((x) => x.sessionId));
    expect(train.size).toBeGreaterThan(0);
    expect(validation.size).toBeGreaterThan(0);
    for (const s of train) expect(validation.has(s)).toBe(false);
    const b = await exportDataset(f.ctx, { format: 'raw', outDir: out('split-b'), trainSplit: 0.5, seed: 7 });
    expect(b.files[0].sha256).toBe(a.files[0].sha256);
    expect(a.train + a.validation).toBe(a.total);
  });

  it('without includePii no detected PII value appears in any exported byte; with it, the export says so', async () => {
    const spans = f.db.prepare('SELECT pii_spans FROM dataset_samples WHERE pii_spans IS NOT NULL').pluck().all() as string[];
    const values = new Set(spans.flatMap((s) => (JSON.parse(s) as { value: string }[]).map((x) => x.value)));
    expect(values.has(PII.email)).toBe(true);
    expect(values.has(PII.apiKey)).toBe(true);
    for (const format of EXPORT_FORMATS) {
      const r = await exportDataset(f.ctx, { format, outDir: out(`pii-${format}`) });
      expect(r.includePii).toBe(false);
      for (const file of fs.readdirSync(r.outDir)) {
        const text = fs.readFileSync(path.join(r.outDir, file), 'utf8');
        for (const v of values) expect(text.includes(v), `${format}/${file} leaks ${v}`).toBe(false);
        // JSON escaping must not hide a leak either
        for (const v of values) expect(text.includes(JSON.stringify(v).slice(1, -1))).toBe(false);
      }
    }
    const raw = await exportDataset(f.ctx, { format: 'raw', outDir: out('pii-included'), includePii: true });
    const all = fs.readFileSync(raw.files[0].path, 'utf8') + fs.readFileSync(raw.files[1].path, 'utf8');
    expect(all).toContain(PII.email);
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
    const t = rec.insertTurn({ sessionId: sid, userMessage: { content: 'I prefer tea to coffee in the morning.' }, agentReply: { content: 'Tea it is.' }, createdAt: BASE + 1 });
    const d = rec.insertDecision({ turnId: t.id, sessionId: sid, decision: 'UPDATE_USER', candidateFact: 'prefers tea to coffee', reason: 'A stable preference.', llmCall: { model: 'm' }, createdAt: BASE + 2 });
    rec.recordWrite({ decisionId: d, turnId: t.id, sessionId: sid, targetFile: 'USER.md', candidateFact: 'prefers tea to coffee', before: '', after: '- prefers tea to coffee\n', status: 'written', createdAt: BASE + 3 });
    const ctx = { db, workspaceDir: ws };
    await collectSamples(ctx, {});
    for (const format of ['raw', 'csv', 'alpaca'] as const) {
      const r = await exportDataset(ctx, { format, outDir: path.join(ws, format) });
      expect(r.total).toBe(3);
      for (const file of fs.readdirSync(r.outDir)) expect(fs.readFileSync(path.join(r.outDir, file), 'utf8')).not.toContain('8613812345678');
    }
    const raw = await exportDataset(ctx, { format: 'raw', outDir: path.join(ws, 'raw-pii'), includePii: true, trainSplit: 1 });
    expect(lines(raw.files[0].path)[0].sessionId).toBe(sid);
    db.close();
  });

  it('exports a near-duplicate cluster once, skips excluded sessions, filters by approval and quality', async () => {
    const r = await exportDataset(f.ctx, { format: 'raw', outDir: out('dedupe') });
    const records = both(r);
    const erinPositives = records.filter((x) => x.sessionId === S.erin && x.sampleType === 'memory_gate_positive');
    expect(erinPositives.length).toBe(1);
    expect(records.some((x) => x.sessionId === S.frank)).toBe(false);
    const clusters = records.map((x) => x.clusterId);
    expect(new Set(clusters).size).toBe(clusters.length);

    const approved = await exportDataset(f.ctx, { format: 'raw', outDir: out('approved'), onlyApproved: true });
    expect(both(approved).every((x) => x.annotationStatus === 'approved' || x.annotationStatus === 'auto_approved')).toBe(true);
    expect(approved.total).toBeLessThan(r.total);
    const quality = await exportDataset(f.ctx, { format: 'raw', outDir: out('quality'), minQuality: 0.9 });
    expect(both(quality).every((x) => (x.qualityScore as number) >= 0.9)).toBe(true);
  });

  it('filters by conversation time: since and until split the samples exactly, and the counts agree', async () => {
    const all = both(await exportDataset(f.ctx, { format: 'raw', outDir: out('all-times') }));
    const times = all.map((x) => x.createdAt as number).sort((a, b) => a - b);
    const cut = times[Math.floor(times.length / 2)];
    const early = await exportDataset(f.ctx, { format: 'raw', outDir: out('early'), until: cut });
    const late = await exportDataset(f.ctx, { format: 'raw', outDir: out('late'), since: cut });
    expect(both(early).every((x) => (x.createdAt as number) < cut)).toBe(true);
    expect(both(late).every((x) => (x.createdAt as number) >= cut)).toBe(true);
    expect(early.total + late.total).toBe(all.length);
    expect(early.total).toBeGreaterThan(0);
    expect(exportSelectionCounts(f.ctx, { format: 'raw', since: cut }).total).toBe(late.total);
    await expect(exportDataset(f.ctx, { format: 'raw', outDir: out('bad-range'), since: cut, until: cut })).rejects.toThrow(/since must be before until/);
  });

  it('records the export with counts, average quality, size and checksums, and writes a dataset card', async () => {
    const r = await exportDataset(f.ctx, { format: 'alpaca', outDir: out('record') });
    const row = f.db.prepare('SELECT * FROM dataset_exports WHERE id = ?').get(r.exportId) as Record<string, unknown>;
    expect(row).toMatchObject({ export_format: 'alpaca', total_samples: r.total, train_samples: r.train, validation_samples: r.validation, include_pii: 0, file_path: r.outDir });
    expect(row.avg_quality_score).toBe(r.avgQuality);
    const files = JSON.parse(row.files as string) as { name: string; bytes: number; sha256: string }[];
    let size = 0;
    for (const file of files) {
      const buf = fs.readFileSync(path.join(r.outDir, file.name));
      expect(createHash('sha256').update(buf).digest('hex')).toBe(file.sha256);
      expect(buf.length).toBe(file.bytes);
      size += buf.length;
    }
    expect(row.file_size_bytes).toBe(size);
    const manifest = files.filter((x) => x.name.endsWith('.jsonl')).map((x) => `${x.sha256}  ${x.name}\n`).join('');
    expect(row.checksum).toBe(createHash('sha256').update(manifest).digest('hex'));
    const card = fs.readFileSync(path.join(r.outDir, 'README.md'), 'utf8');
    expect(card.startsWith('---\n')).toBe(true);
    expect(card).toContain('configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: train.jsonl\n  - split: validation\n    path: validation.jsonl\n');
    expect(card).toContain('size_categories:\n- n<1K');
    expect(fs.readdirSync(r.outDir).some((x) => x.endsWith('.partial'))).toBe(false);
  });

  it('previewExport returns the first records exactly as written', async () => {
    const dir = out('preview');
    const preview = await previewExport(f.ctx, { format: 'openai', seed: 3 }, 4);
    const r = await exportDataset(f.ctx, { format: 'openai', outDir: dir, seed: 3 });
    const written = { train: fs.readFileSync(r.files[0].path, 'utf8'), validation: fs.readFileSync(r.files[1].path, 'utf8') };
    expect(preview.length).toBe(4);
    for (const p of preview) {
      expect(written[p.split]).toContain(p.text);
      expect(JSON.parse(p.text)).toEqual(p.record);
    }
    await expect(exportDataset(f.ctx, { format: 'xml' as never })).rejects.toThrow(/format must be one of/);
    await expect(exportDataset(f.ctx, { format: 'raw', trainSplit: 2 })).rejects.toThrow(/trainSplit/);
  });
});
