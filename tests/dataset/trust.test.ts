// Issue 12: every exported record is one a careful ML engineer would keep.
import { hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  GATE_INSTRUCTION,
  GUARDIAN_INSTRUCTION,
  collectSamples,
  exportDataset,
  getSample,
  markMissedWrite,
  pickRepresentative,
  reviewSample,
  sampleCluster,
  taskOf,
  validateSampleContent,
  type ExportResult,
  type SampleContent,
} from '../../src/core/dataset';
import { correctWrite } from '../../src/core/guardian/corrections';
import { planExport, resolveExport } from '../../src/core/dataset/exportPlan';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { readJsonl, validatePreferenceExamples } from './openaiValidator';
import type { Mini } from './mini';
import { miniWorkspace } from './miniTemp';

const ALL = { includeUnreviewed: true, includeBelowQuality: true } as const;
const dataFiles = (r: ExportResult) => r.files.filter((x) => /\.(train|validation)\.(jsonl|csv)$/.test(x.name));
const records = (r: ExportResult) => dataFiles(r).flatMap((x) => readJsonl(fs.readFileSync(x.path, 'utf8'))) as Record<string, unknown>[];
const rawLines = (r: ExportResult) => dataFiles(r).flatMap((x) => fs.readFileSync(x.path, 'utf8').split('\n').filter(Boolean));
const bySource = (m: Mini, key: string) =>
  getSample(m.ctx, m.db.prepare('SELECT id FROM dataset_samples WHERE source_key = ?').pluck().get(key) as string);

const conversation = [
  { role: 'user' as const, message: 'I prefer morning check-ins' },
  { role: 'agent' as const, message: "I'll remember that." },
];
const KNOWN: SampleContent[] = [
  {
    type: 'memory_gate_positive',
    conversation,
    correctDecision: 'UPDATE_USER',
    correctFact: 'prefers morning check-ins',
    reason: 'stable preference',
    evidence: { wasWritten: true },
  },
  {
    type: 'memory_gate_positive',
    conversation,
    correctDecision: 'NO_WRITE',
    correctFact: '',
    reason: 'small talk',
    evidence: { wasWritten: false },
  },
  {
    type: 'memory_gate_negative',
    conversation,
    incorrectDecision: 'UPDATE_MEMORY',
    incorrectFact: 'x',
    correctDecision: 'NO_WRITE',
    rejectionReason: 'rolled back',
    originalReason: 'maybe',
  },
  {
    type: 'write_guardian_decision',
    candidateFact: 'prefers tea',
    targetFile: 'USER.md',
    currentFileContent: '# USER\n',
    decision: 'written',
    reason: 'stable',
    newFileContent: '# USER\n- prefers tea\n',
  },
  {
    type: 'write_guardian_decision',
    candidateFact: 'api key is sk-1',
    targetFile: 'TOOLS.md',
    currentFileContent: '# TOOLS\n',
    decision: 'refused',
    reason: 'secret',
  },
  {
    type: 'write_guardian_decision',
    candidateFact: 'feels tired today',
    targetFile: 'USER.md',
    currentFileContent: '# USER\n',
    decision: 'written',
    newFileContent: '# USER\n- feels tired today\n',
    userCorrection: { originalDecision: 'written', correctedDecision: 'refused', reason: 'temporary state' },
  },
];
const EXPECTED_TARGET = [
  'Decision: UPDATE_USER\nFact: prefers morning check-ins\nReason: stable preference',
  'Decision: NO_WRITE\nReason: small talk',
  'Decision: NO_WRITE\nReason: rolled back',
  'Action: write\nTarget file: USER.md\nReason: stable\nNew content:\n# USER\n- prefers tea\n',
  'Action: refuse\nTarget file: TOOLS.md\nReason: secret',
  'Action: refuse\nTarget file: USER.md\nReason: temporary state',
];

describe('what a record trains', () => {
  it('in every training format the trained target is the decision or the action, for gate and guardian samples', async () => {
    KNOWN.forEach((c, i) => expect(taskOf(c).output).toBe(EXPECTED_TARGET[i]));
    const { alpacaRecord, sharegptRecord, openaiRecord, ktoRecords } = await import('../../src/core/dataset');
    KNOWN.forEach((c, i) => {
      const target = EXPECTED_TARGET[i];
      const instruction = c.type === 'write_guardian_decision' ? GUARDIAN_INSTRUCTION : GATE_INSTRUCTION;
      expect(alpacaRecord(c)).toMatchObject({ instruction, output: target });
      const sg = sharegptRecord(c);
      expect(sg.system).toBe(instruction);
      expect(sg.conversations.at(-1)).toMatchObject({ from: 'gpt', value: target });
      expect(openaiRecord(c).messages.at(-1)).toEqual({ role: 'assistant', content: target });
      expect(ktoRecords(c)[0]).toEqual({ prompt: expect.stringContaining(instruction), completion: target, label: true });
    });
    expect(sharegptRecord(KNOWN[0]!).conversations[1]).toMatchObject({
      memory_gate_decision: 'UPDATE_USER',
      candidate_fact: 'prefers morning check-ins',
    });
    expect(sharegptRecord(KNOWN[3]!).conversations[1]).toMatchObject({ write_guardian_action: 'write', target_file: 'USER.md' });
  });

  it('a refused write sees the same file content as a written one', async () => {
    const m = miniWorkspace();
    m.turn('s:1', 'I like green tea.', 'Noted.', {
      decision: 'UPDATE_USER',
      fact: 'likes green tea',
      write: { status: 'written', file: 'USER.md' },
    });
    const refused = m.turn('s:1', 'I am tired today.', 'Rest well.', {
      decision: 'UPDATE_USER',
      fact: 'is tired today',
      write: { status: 'refused', file: 'USER.md', reason: 'temporary' },
    });
    await collectSamples(m.ctx, {});
    const wg = bySource(m, `wg:${refused.auditId}`).content as { currentFileContent: string; decision: string };
    expect(wg.decision).toBe('refused');
    expect(wg.currentFileContent).toBe('# USER.md\n- likes green tea\n');
  });
});

describe('dedupe across types, after redaction, across the split', () => {
  it('records that differ only in a secret, or that an annotated turn repeats, are exported once', async () => {
    const m = miniWorkspace();
    for (let i = 0; i < 6; i++) {
      const key = `sk-proj-${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy'}${String(1000 + i)}`;
      m.turn(`s:${i}`, `Use the API key ${key} for deploys.`, 'Got it.', {
        decision: 'UPDATE_TOOLS',
        fact: `Deploy key is ${key}`,
        write: { status: 'refused', file: 'TOOLS.md', reason: 'Secrets stay out of memory.' },
      });
    }
    m.turn('s:7', 'I prefer dark mode in every editor.', 'Dark mode, noted.', {
      decision: 'UPDATE_USER',
      fact: 'prefers dark mode',
      write: { status: 'written', file: 'USER.md' },
    });
    await collectSamples(m.ctx, {});
    for (const format of EXPORT_FORMATS.filter((x) => x !== 'raw' && x !== 'csv')) {
      const r = await exportDataset(m.ctx, { format, outDir: path.join(m.ws, format), trainSplit: 0.5, ...ALL }).catch((e: Error) => e);
      if (r instanceof Error) {
        expect(format === 'openai-dpo' || format === 'ranking' ? r.message : '').toMatch(/nothing to export|^$/);
        continue;
      }
      const lines = rawLines(r);
      expect(new Set(lines).size, `${format} has identical records`).toBe(lines.length);
    }
    const alpaca = await exportDataset(m.ctx, { format: 'alpaca', outDir: path.join(m.ws, 'a2'), trainSplit: 0.5, ...ALL });
    // six refused secrets: one gate negative and one guardian record survive; dark mode: gate and guardian
    expect(alpaca.total).toBe(4);
    expect(alpaca.summary.folded.total + alpaca.summary.identicalDropped.count).toBeGreaterThanOrEqual(10);
  });

  it('a corrected sample wins over its uncorrected near-duplicate, a curator pick wins over both, and folds are reported', async () => {
    const m = miniWorkspace();
    const a = m.turn('s:a', 'I like green tea with my breakfast every day.', 'Green tea with breakfast, got it.', {
      decision: 'UPDATE_USER',
      fact: 'likes green tea with breakfast',
      write: { status: 'written', file: 'USER.md' },
    });
    m.turn('s:b', 'I like green tea with my breakfast every day!', 'Green tea with breakfast, got it.', {
      decision: 'UPDATE_USER',
      fact: 'likes green tea with breakfast',
      write: { status: 'written', file: 'USER.md' },
    });
    const c = m.turn('s:c', 'i like green tea with my breakfast, every day', 'Green tea with breakfast, got it.', {
      decision: 'UPDATE_USER',
      fact: 'likes green tea with breakfast',
      write: { status: 'written', file: 'USER.md' },
    });
    correctWrite(m.ctx, {
      auditId: c.auditId!,
      status: 'written',
      fact: 'likes green tea with breakfast',
      reason: 'Confirmed by the curator.',
    });
    await collectSamples(m.ctx, { autoApprove: true });
    const first = bySource(m, `pos:${a.decisionId}`);
    const cluster = sampleCluster(m.ctx, first.id);
    expect(cluster.members.filter((x) => x.sampleType === 'memory_gate_positive').length).toBe(3);
    expect(cluster.representativeBecause).toBe('corrected');
    const corrected = bySource(m, `pos:corr:${m.db.prepare('SELECT id FROM behavior_corrections').pluck().get()}`);
    expect(cluster.representativeId).toBe(corrected.id);
    m.db.prepare("UPDATE dataset_samples SET annotation_status = 'approved'").run();
    const r = await exportDataset(m.ctx, {
      format: 'raw',
      outDir: path.join(m.ws, 'raw'),
      sampleTypes: ['memory_gate_positive'],
      trainSplit: 1,
      includeBelowQuality: true,
    });
    expect(records(r).map((x) => x.id)).toEqual([corrected.id]);
    expect(r.summary.folded.approved).toBe(2);
    expect(r.summary.folded.samples.every((x) => x.keptSampleId === corrected.id)).toBe(true);
    pickRepresentative(m.ctx, first.id);
    expect(sampleCluster(m.ctx, first.id)).toMatchObject({ representativeId: first.id, representativeBecause: 'pick' });
    const picked = await exportDataset(m.ctx, {
      format: 'raw',
      outDir: path.join(m.ws, 'raw2'),
      sampleTypes: ['memory_gate_positive'],
      trainSplit: 1,
      includeBelowQuality: true,
    });
    expect(records(picked).map((x) => x.id)).toEqual([first.id]);
    expect(fs.readFileSync(path.join(picked.outDir, 'README.md'), 'utf8')).toContain('(2 of them approved)');
  });
});

describe('NO_WRITE, missed writes and label balance', () => {
  async function mixed(): Promise<Mini> {
    const m = miniWorkspace();
    for (let i = 0; i < 6; i++)
      m.turn('s:1', `Small talk number ${i} about the weather in town ${i}.`, 'Nice.', { decision: 'NO_WRITE', reason: 'Small talk.' });
    for (let i = 0; i < 2; i++)
      m.turn('s:2', `My favourite editor number ${i} is Helix ${i}.`, 'Noted.', {
        decision: 'UPDATE_USER',
        fact: `favourite editor ${i} is Helix ${i}`,
        write: { status: 'written', file: 'USER.md' },
      });
    return m;
  }

  it('NO_WRITE decisions become samples and the summary and card state the balance; --balance evens it out', async () => {
    const m = await mixed();
    await collectSamples(m.ctx, {});
    const r = await exportDataset(m.ctx, {
      format: 'alpaca',
      outDir: path.join(m.ws, 'a'),
      sampleTypes: ['memory_gate_positive', 'memory_gate_negative'],
      ...ALL,
    });
    expect(r.summary.balance.memory_gate).toEqual({ write: 2, no_write: 6 });
    const card = fs.readFileSync(path.join(r.outDir, 'README.md'), 'utf8');
    expect(card).toContain('- memory_gate: write 2 (25%), NO_WRITE 6 (75%)');
    const balanced = await exportDataset(m.ctx, {
      format: 'alpaca',
      outDir: path.join(m.ws, 'b'),
      sampleTypes: ['memory_gate_positive', 'memory_gate_negative'],
      balance: true,
      ...ALL,
    });
    expect(balanced.summary.balance.memory_gate).toEqual({ write: 2, no_write: 2 });
    expect(balanced.summary.balancedOut).toBe(4);
  });

  it('--balance keeps the samples whose seeded SHA-256 of the id comes first, for each seed', async () => {
    const m = await mixed();
    await collectSamples(m.ctx, {});
    const noWrite = "sample_type LIKE 'memory_gate%' AND json_extract(content, '$.correctDecision') = 'NO_WRITE'";
    const negatives = m.ctx.db.prepare(`SELECT rowid AS r, id FROM dataset_samples WHERE ${noWrite}`).all() as { r: number; id: string }[];
    expect(negatives).toHaveLength(6);
    for (const seed of ['reflection', 'a', '7', 'another seed']) {
      const plan = planExport(
        m.ctx,
        resolveExport({ format: 'alpaca', sampleTypes: ['memory_gate_positive', 'memory_gate_negative'], balance: true, seed, ...ALL }),
      );
      const key = (id: string) => hash('sha256', `${seed}\u0000${id}`, 'hex');
      const first = negatives.sort((a, b) => (key(a.id) < key(b.id) ? -1 : 1)).slice(0, 2);
      const kept = negatives.filter((x) => Array.from(plan.rowids).includes(x.r));
      expect(kept.map((x) => x.r).sort()).toEqual(first.map((x) => x.r).sort());
    }
  });

  it("a missed-write correction turns a NO_WRITE into a positive with the curator's fact and file", async () => {
    const m = miniWorkspace();
    const t = m.turn('s:1', 'My daughter is allergic to peanuts.', 'Oh, good to know.', {
      decision: 'NO_WRITE',
      reason: 'Not about the user.',
    });
    await collectSamples(m.ctx, {});
    const before = bySource(m, `pos:nowrite:${t.decisionId}`);
    expect(taskOf(before.content).output).toBe('Decision: NO_WRITE\nReason: Not about the user.');
    const result = await markMissedWrite(m.ctx, {
      decisionId: t.decisionId,
      fact: "User's daughter is allergic to peanuts",
      file: 'USER.md',
      reason: 'A lasting family fact the agent needs.',
    });
    expect(result).toMatchObject({ decision: 'UPDATE_USER', addedSamples: 2, supersededSamples: 1 });
    expect(getSample(m.ctx, before.id).annotationStatus).toBe('rejected');
    const pos = bySource(m, `pos:missed:${result.correctionId}`);
    expect(pos.annotationStatus).toBe('auto_approved');
    expect(taskOf(pos.content).output).toBe(
      "Decision: UPDATE_USER\nFact: User's daughter is allergic to peanuts\nReason: A lasting family fact the agent needs.",
    );
    const r = await exportDataset(m.ctx, { format: 'alpaca', outDir: path.join(m.ws, 'a'), trainSplit: 1, includeBelowQuality: true });
    expect(r.summary.balance.memory_gate).toEqual({ write: 1, no_write: 0 });
    await expect(markMissedWrite(m.ctx, { decisionId: t.decisionId, fact: ' ', file: 'USER.md', reason: 'x' })).rejects.toThrow(
      /fact must not be empty/,
    );
    const w = m.turn('s:1', 'I like tea.', 'Ok.', {
      decision: 'UPDATE_USER',
      fact: 'likes tea',
      write: { status: 'written', file: 'USER.md' },
    });
    await expect(markMissedWrite(m.ctx, { decisionId: w.decisionId, fact: 'x', file: 'USER.md', reason: 'x' })).rejects.toThrow(
      /only a NO_WRITE/,
    );
  });
});

describe("preference exports against the consumers' documented schemas", () => {
  async function corrected(): Promise<Mini> {
    const m = miniWorkspace();
    const w = m.turn('s:1', 'I feel a bit tired today.', 'Rest well.', {
      decision: 'UPDATE_USER',
      fact: 'feels tired today',
      reason: 'user state',
      write: { status: 'written', file: 'USER.md' },
    });
    const r = m.turn('s:2', 'From now on, answer me in Chinese.', '好的。', {
      decision: 'UPDATE_USER',
      fact: 'prefers Chinese answers',
      reason: 'stable preference',
      write: { status: 'refused', file: 'USER.md', reason: 'looks temporary' },
    });
    m.turn('s:3', 'Nice weather.', 'Indeed.', { decision: 'NO_WRITE', reason: 'Small talk.' });
    correctWrite(m.ctx, { auditId: w.auditId!, status: 'refused', reason: 'A passing state, not a lasting fact.' });
    correctWrite(m.ctx, { auditId: r.auditId!, status: 'written', reason: 'A lasting language preference.' });
    await collectSamples(m.ctx, { autoApprove: true });
    return m;
  }

  it("LLaMA-Factory ranking: alpaca columns with chosen/rejected and a ranking entry; pairs sit on the corrected step's prompt", async () => {
    const m = await corrected();
    const r = await exportDataset(m.ctx, { format: 'ranking', outDir: path.join(m.ws, 'rank'), trainSplit: 1, ...ALL });
    const recs = records(r) as Record<string, string>[];
    expect(recs.length).toBeGreaterThanOrEqual(3);
    for (const rec of recs) {
      expect(Object.keys(rec).sort()).toEqual(['chosen', 'input', 'instruction', 'rejected']);
      for (const v of Object.values(rec)) expect(typeof v).toBe('string');
      expect(rec.chosen!.toLowerCase()).not.toBe(rec.rejected!.toLowerCase());
    }
    // the guardian refused a lasting preference; the curator said write: a guardian pair on the guardian prompt
    const guardianPair = recs.find((x) => x.instruction === GUARDIAN_INSTRUCTION && x.input!.includes('prefers Chinese answers'))!;
    expect(guardianPair.chosen).toMatch(/^Action: write\nTarget file: USER.md/);
    expect(guardianPair.rejected).toMatch(/^Action: refuse/);
    const info = JSON.parse(fs.readFileSync(path.join(r.outDir, 'dataset_info.json'), 'utf8'));
    expect(info.reflection_ranking_train).toEqual({
      file_name: 'ranking.train.jsonl',
      formatting: 'alpaca',
      ranking: true,
      columns: { prompt: 'instruction', query: 'input', chosen: 'chosen', rejected: 'rejected' },
    });
    for (const entry of Object.values(info) as { columns: Record<string, string> }[]) {
      for (const column of Object.values(entry.columns)) expect(recs[0]).toHaveProperty(column);
    }
    const dpo = await exportDataset(m.ctx, { format: 'openai-dpo', outDir: path.join(m.ws, 'dpo'), trainSplit: 1, ...ALL });
    expect(validatePreferenceExamples(records(dpo))).toEqual({});
    expect(dpo.total).toBe(r.total);
  });

  it('KTO: prompt, completion and a boolean label from every reviewed decision, with a kto_tag entry', async () => {
    const m = await corrected();
    const r = await exportDataset(m.ctx, { format: 'kto', outDir: path.join(m.ws, 'kto'), trainSplit: 1, ...ALL });
    const recs = records(r);
    for (const rec of recs) {
      expect(Object.keys(rec).sort()).toEqual(['completion', 'label', 'prompt']);
      expect(typeof rec.prompt).toBe('string');
      expect(typeof rec.completion).toBe('string');
      expect(typeof rec.label).toBe('boolean');
    }
    expect(recs.some((x) => x.label === false)).toBe(true);
    // the uncorrected NO_WRITE is a reviewed decision too: a desirable example
    expect(recs).toContainEqual({
      prompt: expect.stringContaining('Nice weather.'),
      completion: 'Decision: NO_WRITE\nReason: Small talk.',
      label: true,
    });
    expect(r.summary.balance.kto!.undesirable).toBe(recs.filter((x) => !x.label).length);
    const info = JSON.parse(fs.readFileSync(path.join(r.outDir, 'dataset_info.json'), 'utf8'));
    expect(info.reflection_kto_train).toEqual({
      file_name: 'kto.train.jsonl',
      formatting: 'alpaca',
      columns: { prompt: 'prompt', response: 'completion', kto_tag: 'label' },
    });
  });
});

describe("the export folder loads with the consumers' rules", () => {
  it('one session: no empty validation file, no card entry, a note; an empty workspace is an error', async () => {
    const m = miniWorkspace();
    m.turn('s:1', 'I prefer tabs.', 'Ok.', {
      decision: 'UPDATE_USER',
      fact: 'prefers tabs',
      write: { status: 'written', file: 'USER.md' },
    });
    m.turn('s:1', 'Thanks!', 'Welcome.', { decision: 'NO_WRITE', reason: 'Small talk.' });
    await collectSamples(m.ctx, {});
    const r = await exportDataset(m.ctx, { format: 'alpaca', outDir: path.join(m.ws, 'one'), ...ALL });
    expect(fs.readdirSync(r.outDir).sort()).toEqual(['LICENSE.md', 'README.md', 'alpaca.train.jsonl', 'dataset_info.json']);
    expect(r.validation).toBe(0);
    const card = fs.readFileSync(path.join(r.outDir, 'README.md'), 'utf8');
    expect(card).not.toContain('split: validation');
    expect(card).toContain('no validation split');
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(r.outDir, 'dataset_info.json'), 'utf8')))).toEqual(['reflection_alpaca_train']);
    // a turn-level split, asked for, gives both files
    const byTurn = await exportDataset(m.ctx, {
      format: 'alpaca',
      outDir: path.join(m.ws, 'turns'),
      splitBy: 'turn',
      trainSplit: 0.5,
      ...ALL,
    });
    expect(byTurn.validation).toBeGreaterThan(0);

    const empty = miniWorkspace();
    await expect(exportDataset(empty.ctx, { format: 'alpaca', outDir: path.join(empty.ws, 'x') })).rejects.toThrow(
      /no dataset samples yet; run `reflection dataset collect`/,
    );
    expect(fs.existsSync(path.join(empty.ws, 'x'))).toBe(false);
  });

  it('alpaca then sharegpt into one folder: each dataset_info entry points at its own file, the card lists both', async () => {
    const m = miniWorkspace();
    for (let i = 0; i < 6; i++)
      m.turn(`s:${i}`, `I use editor number ${i} for ${i} years.`, 'Ok.', {
        decision: 'UPDATE_USER',
        fact: `uses editor ${i}`,
        write: { status: 'written', file: 'USER.md' },
      });
    await collectSamples(m.ctx, {});
    const dir = path.join(m.ws, 'both');
    await exportDataset(m.ctx, { format: 'alpaca', outDir: dir, ...ALL });
    await exportDataset(m.ctx, { format: 'sharegpt', outDir: dir, ...ALL });
    const info = JSON.parse(fs.readFileSync(path.join(dir, 'dataset_info.json'), 'utf8')) as Record<
      string,
      { file_name: string; formatting: string }
    >;
    expect(info.reflection_alpaca_train!.file_name).toBe('alpaca.train.jsonl');
    expect(info.reflection_sharegpt_train!.file_name).toBe('sharegpt.train.jsonl');
    for (const [key, entry] of Object.entries(info)) {
      const first = readJsonl(fs.readFileSync(path.join(dir, entry.file_name), 'utf8'))[0] as Record<string, unknown>;
      expect(first, key).toHaveProperty(entry.formatting === 'alpaca' ? 'instruction' : 'conversations');
    }
    const card = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(card).toContain('- config_name: sharegpt\n  default: true');
    expect(card).toContain('- config_name: alpaca\n');
  });
});

describe('CSV, token limits and edits', () => {
  it('CSV escapes leading = + - @ tab and CR in every cell, session keys included, and cuts cells at 32,767 characters', async () => {
    const m = miniWorkspace();
    const long = 'x'.repeat(40_000);
    m.turn('\t=cmd|session', '\r=HYPERLINK("http://evil")', '@agent', {
      decision: 'UPDATE_USER',
      fact: `-2+3 ${long}`,
      write: { status: 'written', file: 'USER.md' },
    });
    await collectSamples(m.ctx, {});
    const r = await exportDataset(m.ctx, { format: 'csv', outDir: path.join(m.ws, 'csv'), trainSplit: 1, ...ALL });
    const parsed = Papa.parse<string[]>(fs.readFileSync(r.files[0]!.path, 'utf8'), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    for (const row of parsed.data.slice(1)) {
      for (const cell of row) {
        expect(cell).not.toMatch(/^[=+\-@\t\r]/);
        expect(cell.length).toBeLessThanOrEqual(32_767);
      }
    }
    expect(parsed.data.slice(1).some((row) => row[1]!.startsWith("'\t=cmd"))).toBe(true);
    expect(parsed.data.slice(1).some((row) => row.some((c) => c.includes('…[truncated')))).toBe(true);
    expect(r.summary.csvCellsTruncated).toBeGreaterThan(0);
  });

  it("counts tokens with the target model's tokenizer and limit", async () => {
    const m = miniWorkspace();
    m.turn('s:1', 'I prefer short answers.', 'Ok.', {
      decision: 'UPDATE_USER',
      fact: 'prefers short answers',
      write: { status: 'written', file: 'USER.md' },
    });
    await collectSamples(m.ctx, {});
    const o200k = await exportDataset(m.ctx, { format: 'openai', outDir: path.join(m.ws, 'a'), ...ALL });
    const cl100k = await exportDataset(m.ctx, {
      format: 'openai',
      outDir: path.join(m.ws, 'b'),
      config: { export: { targetModel: 'gpt-3.5-turbo' } },
      ...ALL,
    });
    expect(o200k.summary.tokens).toMatchObject({ model: 'gpt-4o-mini', encoding: 'o200k_base', limit: 65_536 });
    expect(cl100k.summary.tokens).toMatchObject({ model: 'gpt-3.5-turbo', encoding: 'cl100k_base', limit: 16_385 });
    expect(o200k.summary.tokens!.total).toBeGreaterThan(20);
    expect(fs.readFileSync(path.join(o200k.outDir, 'README.md'), 'utf8')).toContain('Tokens (o200k_base, for gpt-4o-mini)');
  });

  it('an edited sample that does not fit its type is rejected with the field named', () => {
    expect(() => validateSampleContent('write_guardian_decision', { type: 'write_guardian_decision', bogus: 1 })).toThrow(
      /content\.candidateFact/,
    );
    expect(() => validateSampleContent('write_guardian_decision', { ...KNOWN[3], bogus: 1 })).toThrow(/content\.bogus/);
    expect(() => validateSampleContent('memory_gate_positive', { ...KNOWN[0], correctDecision: 'UPDATE_EVERYTHING' })).toThrow(
      /content\.correctDecision/,
    );
    expect(() => validateSampleContent('memory_gate_positive', { ...KNOWN[0], correctFact: '' })).toThrow(
      /content\.correctFact: a write decision needs a fact/,
    );
    for (const c of KNOWN) expect(validateSampleContent(c.type, c)).toBe(c);
  });

  it("reviewSample refuses the issue's broken edit and keeps the stored sample", async () => {
    const m = miniWorkspace();
    const t = m.turn('s:1', 'I prefer tea.', 'Ok.', {
      decision: 'UPDATE_USER',
      fact: 'prefers tea',
      write: { status: 'written', file: 'USER.md' },
    });
    await collectSamples(m.ctx, {});
    const wg = bySource(m, `wg:${t.auditId}`);
    await expect(
      reviewSample(m.ctx, { sampleId: wg.id, action: 'edit', content: { type: 'write_guardian_decision', bogus: 1 } as never }),
    ).rejects.toThrow(/content\.candidateFact.*|content\.bogus/);
    expect(getSample(m.ctx, wg.id).content).toEqual(wg.content);
    const fixed = await reviewSample(m.ctx, {
      sampleId: wg.id,
      action: 'edit',
      content: { ...(wg.content as object), candidateFact: 'prefers green tea' } as never,
    });
    expect((fixed.content as { candidateFact: string }).candidateFact).toBe('prefers green tea');
  });
});

describe('workspaces clustered by the old scheme', () => {
  it('are reclustered on the teaching unit before an export folds by them', async () => {
    const m = miniWorkspace();
    const a = m.turn('s:1', 'My sister Lily lives in Hangzhou.', 'Noted.', {
      decision: 'UPDATE_USER',
      fact: 'Sister Lily lives in Hangzhou',
      write: { status: 'written', file: 'USER.md' },
    });
    const b = m.turn('s:1', 'My brother Tom lives in Shanghai.', 'Noted.', {
      decision: 'UPDATE_USER',
      fact: 'Brother Tom lives in Shanghai',
      write: { status: 'written', file: 'USER.md' },
    });
    await collectSamples(m.ctx, {});
    // what an old collection left: one cluster for both facts, leaders without a unit
    const ida = bySource(m, `pos:${a.decisionId}`).id;
    m.db
      .prepare('UPDATE dataset_samples SET cluster_id = ? WHERE source_key IN (?, ?)')
      .run(ida, `pos:${a.decisionId}`, `pos:${b.decisionId}`);
    m.db.prepare('UPDATE dataset_minhash SET unit = NULL').run();
    const r = await exportDataset(m.ctx, {
      format: 'alpaca',
      outDir: path.join(m.ws, 'a'),
      sampleTypes: ['memory_gate_positive'],
      trainSplit: 1,
      ...ALL,
    });
    expect(r.total).toBe(2);
    expect(m.db.prepare('SELECT count(*) FROM dataset_minhash WHERE unit IS NULL').pluck().get()).toBe(0);
  });
});
