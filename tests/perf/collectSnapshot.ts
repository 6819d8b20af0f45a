// What a collection produced, in a form that survives re-recording (issue 16, "the results are the
// same"): the recorder's ids are random, so every sample is named by a stable key (its decision's time
// and session, and its source key without ids), and ids inside labels and signals are replaced by the
// stable key of the sample they name, or by "<id>". Clusters are the sets of stable keys that share one.
// Run `npx tsx tests/perf/collectSnapshot.ts --write` to regenerate the fixture (only when a difference is
// intended, and say why in the commit).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { DB } from '../../src/core/db/connection';
import { collectSamples } from '../../src/core/dataset';
import { buildWorkspace } from '../../bench/dataset/workspace';

export const SNAPSHOT_DECISIONS = Number(process.env.SNAPSHOT_DECISIONS ?? 600);
/** gzip: the JSON is ~400 KB of repetitive labels, 26 KB compressed. */
export const SNAPSHOT_FILE = path.join(__dirname, 'fixtures', 'collect-snapshot.json.gz');
/** Collection's clock: the bench workspace's last correction is at 2026-01-01 + ~N s; a month later. */
const COLLECT_NOW = Date.UTC(2026, 1, 1);

export interface SampleRecord {
  key: string;
  status: string;
  quality: number | null;
  labels: unknown;
  signals?: unknown;
  piiSpans?: { field: string; type: string; start: number; end: number; value: string }[];
  redacted: boolean;
}

export interface CollectSnapshot {
  decisions: number;
  samples: SampleRecord[];
  clusters: string[][];
}

const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;

export async function collectSnapshot(dir: string): Promise<CollectSnapshot> {
  const db = buildWorkspace(dir, SNAPSHOT_DECISIONS);
  try {
    await collectSamples({ db, workspaceDir: dir, now: () => COLLECT_NOW }, { autoApprove: true });
    return snapshotOf(db);
  } finally {
    db.close();
  }
}

function snapshotOf(db: DB): CollectSnapshot {
  const rows = db
    .prepare(
      `SELECT s.id, s.source_key, s.annotation_status, s.quality_score, s.labels, s.feedback_signals, s.pii_spans,
        s.pii_redacted_content IS NOT NULL AS redacted, s.cluster_id, d.created_at, d.session_id
      FROM dataset_samples s JOIN memory_gate_decisions d ON d.id = s.decision_id`,
    )
    .all() as {
    id: string;
    source_key: string;
    annotation_status: string;
    quality_score: number | null;
    labels: string | null;
    feedback_signals: string | null;
    pii_spans: string | null;
    redacted: number;
    cluster_id: string | null;
    created_at: number;
  }[];
  // decisions are recorded one second apart from a fixed start, so their order names them
  const ordinals = [...new Set(rows.map((r) => r.created_at))].sort((a, b) => a - b);
  const ordinal = new Map(ordinals.map((t, i) => [t, i]));
  const keyOf = new Map<string, string>();
  for (const r of rows) keyOf.set(r.id, `d${ordinal.get(r.created_at)}|${r.source_key.replace(ULID, '')}`);
  const stable = (json: string | null) => (json === null ? null : JSON.parse(json.replace(ULID, (id) => keyOf.get(id) ?? '<id>')));
  const samples = rows
    .map((r) => ({
      key: keyOf.get(r.id)!,
      status: r.annotation_status,
      quality: r.quality_score === null ? null : Math.round(r.quality_score * 1e6) / 1e6,
      labels: stable(r.labels),
      signals: stable(r.feedback_signals),
      piiSpans: ((stable(r.pii_spans) ?? []) as NonNullable<SampleRecord['piiSpans']>).map(({ field, type, start, end, value }) => ({
        field,
        type,
        start,
        end,
        value,
      })),
      redacted: r.redacted === 1,
    }))
    .map(
      ({ signals, piiSpans, ...rest }) =>
        ({ ...rest, ...(signals === null ? {} : { signals }), ...(piiSpans.length ? { piiSpans } : {}) }) as SampleRecord,
    )
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byCluster = new Map<string, string[]>();
  for (const r of rows) {
    const c = r.cluster_id ?? r.id;
    byCluster.set(c, [...(byCluster.get(c) ?? []), keyOf.get(r.id)!]);
  }
  const clusters = [...byCluster.values()]
    .filter((m) => m.length > 1)
    .map((m) => m.sort())
    .sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1));
  return { decisions: SNAPSHOT_DECISIONS, samples, clusters };
}

export function readSnapshotFixture(): CollectSnapshot {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(SNAPSHOT_FILE)).toString('utf8')) as CollectSnapshot;
}

if (process.argv.includes('--write')) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-snapshot-'));
  void collectSnapshot(dir).then((s) => {
    fs.mkdirSync(path.dirname(SNAPSHOT_FILE), { recursive: true });
    fs.writeFileSync(SNAPSHOT_FILE, zlib.gzipSync(`${JSON.stringify(s)}\n`, { level: 9 }));
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`${s.samples.length} samples, ${s.clusters.length} clusters -> ${SNAPSHOT_FILE}`);
  });
}
