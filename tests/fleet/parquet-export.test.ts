// `dataset export --format parquet`: the same records as the JSONL formats, with typed columns.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { exportDataset, type ExportResult } from '../../src/core/dataset';
import { tempWorkspace } from '../helpers/workspace';
import { curatedWorkspace, duck } from './helpers';

const dir = tempWorkspace('reflection-parquet-');
const out = path.join(tempWorkspace('reflection-parquet-out-'), 'export');
let parquet: ExportResult;
let alpaca: ExportResult;
let openai: ExportResult;

const jsonl = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  await curatedWorkspace(dir, 4, 8);
  const { db } = openWorkspaceDatabase(dir);
  try {
    const ctx = { db, workspaceDir: dir };
    parquet = await exportDataset(ctx, { format: 'parquet', outDir: out });
    alpaca = await exportDataset(ctx, { format: 'alpaca', outDir: out, overwrite: true });
    openai = await exportDataset(ctx, { format: 'openai', outDir: out, overwrite: true });
  } finally {
    db.close();
  }
}, 240_000);

describe('dataset export --format parquet', () => {
  it('writes the same records as the JSONL formats, split for split', async () => {
    const d = await duck();
    expect(parquet.total).toBe(alpaca.total);
    for (const split of ['train', 'validation'] as const) {
      const file = path.join(out, `parquet.${split}.parquet`);
      if (!fs.existsSync(path.join(out, `alpaca.${split}.jsonl`))) {
        expect(fs.existsSync(file)).toBe(false);
        continue;
      }
      const rows = await d.all<{
        instruction: string;
        input: string;
        output: string;
        messages: { role: string; content: string }[];
        split: string;
      }>(`SELECT instruction, input, output, messages, split FROM read_parquet('${file}')`);
      const a = jsonl(path.join(out, `alpaca.${split}.jsonl`));
      const o = jsonl(path.join(out, `openai.${split}.jsonl`));
      expect(rows.map((r) => ({ instruction: r.instruction, input: r.input, output: r.output }))).toEqual(a);
      expect(rows.map((r) => ({ messages: r.messages }))).toEqual(o);
      expect(rows.every((r) => r.split === split)).toBe(true);
    }
  });

  it('types its label and quality columns', async () => {
    const d = await duck();
    const cols = await d.all<{ column_name: string; column_type: string }>(
      `DESCRIBE SELECT * FROM read_parquet('${out}/parquet.train.parquet')`,
    );
    const type = (n: string) => cols.find((c) => c.column_name === n)?.column_type;
    expect(type('quality_score')).toBe('DOUBLE');
    expect(type('contains_pii')).toBe('BOOLEAN');
    expect(type('created_at')).toMatch(/^TIMESTAMP/);
    expect(type('messages')).toBe('STRUCT("role" VARCHAR, "content" VARCHAR)[]');
    expect(type('conversations')).toBe('STRUCT("from" VARCHAR, "value" VARCHAR)[]');
    const labels = await d.all<{ label: string }>(`SELECT DISTINCT label FROM read_parquet('${out}/parquet.*.parquet') ORDER BY label`);
    expect(labels.map((l) => l.label)).toContain('NO_WRITE');
  });

  it('points the card configs and dataset_info at the Parquet files', () => {
    const card = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(card).toMatch(/config_name: parquet[\s\S]*path: parquet\.train\.parquet/);
    const info = JSON.parse(fs.readFileSync(path.join(out, 'dataset_info.json'), 'utf8'));
    expect(info.reflection_parquet_train.file_name).toBe('parquet.train.parquet');
    expect(openai.files.some((f) => f.name === 'openai.train.jsonl')).toBe(true);
  });
});
