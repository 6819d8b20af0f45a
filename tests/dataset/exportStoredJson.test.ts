// Issue 16: raw and csv write a sample's stored content, labels and quality factors texts as they are
// when each is exactly what JSON.stringify writes for its value (canonicalJson.ts), and csv takes their
// quotes doubled by SQLite. Texts stored in another form (spacing, escapes, key order) must still come
// out as the serializer writes them: the references are the preview's records, built the general way.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectSamples, exportDataset, previewExport } from '../../src/core/dataset';
import { CSV_FIELDS } from '../../src/core/dataset/formats';
import { tempWorkspace } from '../helpers/workspace';
import { buildFixture, type Fixture } from './fixture';

let f: Fixture;
const ALL = { includeUnreviewed: true, includeBelowQuality: true, trainSplit: 1 } as const;

/** Rewrites every other sample's stored texts into forms JSON.stringify would not write. */
function storeAwkwardTexts(): number {
  const db = f.ctx.db;
  const rows = db
    .prepare('SELECT rowid AS r, content, pii_redacted_content AS red, labels, quality_factors AS qf FROM dataset_samples')
    .all() as {
    r: number;
    content: string;
    red: string | null;
    labels: string | null;
    qf: string | null;
  }[];
  const update = db.prepare(
    'UPDATE dataset_samples SET content = ?, pii_redacted_content = ?, labels = ?, quality_factors = ? WHERE rowid = ?',
  );
  let n = 0;
  for (const [i, row] of rows.entries()) {
    if (i % 2) continue;
    const spaced = (t: string | null) => (t === null ? null : JSON.stringify(JSON.parse(t), null, 1));
    // a key that starts with a digit moves to the front when parsed; \u0041 and \/ are written as A and /
    const labels = row.labels && `{"9":"x","note":"\\u0041\\/",${row.labels.slice(1)}`.replace(/,}$/, '}');
    update.run(spaced(row.content), i % 4 ? spaced(row.red) : row.red, labels, spaced(row.qf), row.r);
    n++;
  }
  return n;
}

beforeAll(async () => {
  f = await buildFixture();
  await collectSamples(f.ctx, { autoApprove: true });
  expect(storeAwkwardTexts()).toBeGreaterThan(3);
});

describe('raw and csv write stored JSON texts only where the serializer would write the same', () => {
  for (const includePii of [false, true]) {
    it(`raw: every line is JSON.stringify of the record (includePii ${includePii})`, async () => {
      const opts = { format: 'raw' as const, ...ALL, includePii };
      const r = await exportDataset(f.ctx, { ...opts, outDir: path.join(tempWorkspace('stored-json-'), 'raw') });
      const written = fs.readFileSync(r.files[0]!.path, 'utf8');
      const preview = await previewExport(f.ctx, opts, r.total);
      expect(preview).toHaveLength(r.total);
      expect(written).toBe(preview.map((p) => `${JSON.stringify(p.record)}\n`).join(''));
    });

    it(`csv: the content and labels cells are their values serialized (includePii ${includePii})`, async () => {
      const opts = { format: 'csv' as const, ...ALL, includePii };
      const r = await exportDataset(f.ctx, { ...opts, outDir: path.join(tempWorkspace('stored-json-'), 'csv') });
      const written = fs.readFileSync(r.files[0]!.path, 'utf8');
      const preview = await previewExport(f.ctx, opts, r.total);
      expect(written.slice(written.indexOf('\r\n') + 2)).toBe(preview.map((p) => p.text).join(''));
      for (const p of preview) {
        const cells = p.record as Record<(typeof CSV_FIELDS)[number], string>;
        expect(cells.content).toBe(JSON.stringify(JSON.parse(cells.content)));
        expect(cells.labels).toBe(JSON.stringify(JSON.parse(cells.labels)));
      }
      expect(preview.some((p) => (p.record as { labels: string }).labels.startsWith('{"9":"x","note":"A/"'))).toBe(true);
    });
  }
});
