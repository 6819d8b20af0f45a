// What every export format writes for a fixed workspace, in a form that survives re-recording (issue 16,
// "the results are the same"): the recorder's and collection's ids are random, so each ULID in a file is
// replaced by the order of its first appearance there, and then the file is hashed. The dataset card is
// kept as text (its checksums, and the sizes of compressed Parquet files, are masked), and so is the export summary.
// Run `npx tsx tests/dataset/exportSnapshot.ts --write` to regenerate the fixture (only when a difference
// is intended, and say why in the commit).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectSamples, exportDataset } from '../../src/core/dataset';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { buildWorkspace } from '../../bench/dataset/workspace';

export const SNAPSHOT_DECISIONS = 400;
export const SNAPSHOT_FILE = path.join(__dirname, 'fixtures', 'export-snapshot.json');
/** The clocks of collection and export: a month after the bench workspace's last correction. */
const COLLECT_NOW = Date.UTC(2026, 1, 1);
const EXPORT_NOW = Date.UTC(2026, 1, 2);

export interface FormatSnapshot {
  total: number;
  /** data file name -> sha256 of its text with ULIDs numbered (Parquet: its record count only, it is binary) */
  files: Record<string, string>;
  card: string;
  summary: unknown;
}

export type ExportSnapshot = Record<string, FormatSnapshot>;

const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;
const SHA256 = /\b[0-9a-f]{64}\b/g;
/** A Parquet file's size in the card's table: its pages are compressed, so random ids change it. */
const PARQUET_BYTES = /(\.parquet \| \d+ \| )\d+/g;

function numbered(text: string): string {
  const seen = new Map<string, number>();
  return text.replace(ULID, (id) => {
    if (!seen.has(id)) seen.set(id, seen.size);
    return `<id${seen.get(id)}>`;
  });
}

export async function exportSnapshot(dir: string): Promise<ExportSnapshot> {
  const db = buildWorkspace(dir, SNAPSHOT_DECISIONS);
  const out: ExportSnapshot = {};
  try {
    await collectSamples({ db, workspaceDir: dir, now: () => COLLECT_NOW }, { autoApprove: true });
    for (const format of EXPORT_FORMATS) {
      const outDir = path.join(dir, `export-${format}`);
      const r = await exportDataset({ db, workspaceDir: dir, now: () => EXPORT_NOW, actor: 'snapshot' }, { format, outDir });
      const files: Record<string, string> = {};
      for (const f of r.files) {
        if (f.name === 'README.md' || f.name === 'dataset_info.json') continue;
        files[f.name] = f.name.endsWith('.parquet')
          ? `${f.records} records`
          : createHash('sha256')
              .update(numbered(fs.readFileSync(f.path, 'utf8')))
              .digest('hex');
      }
      const card = numbered(fs.readFileSync(path.join(outDir, 'README.md'), 'utf8'))
        .replace(SHA256, '<sha256>')
        .replace(PARQUET_BYTES, '$1<bytes>');
      out[format] = { total: r.total, files, card, summary: JSON.parse(numbered(JSON.stringify(r.summary))) };
    }
    return out;
  } finally {
    db.close();
  }
}

export function readExportFixture(): ExportSnapshot {
  return JSON.parse(fs.readFileSync(SNAPSHOT_FILE, 'utf8')) as ExportSnapshot;
}

if (process.argv.includes('--write')) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-export-snapshot-'));
  exportSnapshot(dir)
    .then((s) => {
      fs.mkdirSync(path.dirname(SNAPSHOT_FILE), { recursive: true });
      fs.writeFileSync(SNAPSHOT_FILE, `${JSON.stringify(s, null, 1)}\n`);
      console.log(
        `wrote ${SNAPSHOT_FILE}: ${Object.entries(s)
          .map(([f, x]) => `${f} ${x.total}`)
          .join(', ')}`,
      );
    })
    .finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}
