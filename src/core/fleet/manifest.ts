// The fleet folder's manifest (what each run took, with checksums) and its dataset card, whose
// `configs` glob the Parquet parts so the Hugging Face viewer and `load_dataset` find both splits.
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { SkippedWorkspace } from './workspaces';
import type { DataSplit } from '../../shared/domain';

export interface ManifestFile {
  path: string;
  agent: string;
  split: DataSplit;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface ManifestRun {
  id: string;
  at: string;
  exporter: string;
  members: { agent: string; dir: string; added: number; train: number; validation: number; folded: number }[];
  skipped: SkippedWorkspace[];
  files: ManifestFile[];
}

export interface FleetManifest {
  format: 'reflection-fleet/1';
  layout: string;
  dedupe: string;
  runs: ManifestRun[];
}

export const MANIFEST_FILE = 'manifest.json';

export function readManifest(outDir: string): FleetManifest {
  const file = path.join(outDir, MANIFEST_FILE);
  if (!fs.existsSync(file)) {
    return {
      format: 'reflection-fleet/1',
      layout: 'agent=<id>/split=<train|validation>/part-<run id>.parquet',
      dedupe:
        'a record (instruction, input and output after redaction) is kept once: the copy exported first wins; within a run, agents in name order',
      runs: [],
    };
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as FleetManifest;
}

export function writeManifest(outDir: string, run: ManifestRun): void {
  const manifest = readManifest(outDir);
  manifest.runs.push(run);
  writeFileAtomic.sync(path.join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

const CARD = `---
configs:
- config_name: default
  data_files:
  - split: train
    path: "agent=*/split=train/*.parquet"
  - split: validation
    path: "agent=*/split=validation/*.parquet"
tags:
- openclaw
- memory
---
# Fleet dataset of OpenClaw Reflection memory decisions

Curated memory_gate and write_guardian samples of many agents, written by Reflection Workbench's
\`reflection fleet export\`. Each row carries its lineage (agent, workspace, sample, decision, export id,
exporter version), its labels and quality factors as columns, and the training record three ways:
\`instruction\`/\`input\`/\`output\` (Alpaca), \`messages\` (OpenAI chat) and \`conversations\` (ShareGPT).

- Split: by session, fixed once given; a session never moves between splits on a later run.
- Dedupe: a record two agents share is kept once (the copy exported first wins).
- Personal data is replaced by typed placeholders unless the exporter asked otherwise.
- \`manifest.json\` lists every run, what it took, and each file's SHA-256.
`;

/** The card is the same for every run (the globs cover new parts), so it is written only when missing. */
export function writeFleetCard(outDir: string): void {
  const file = path.join(outDir, 'README.md');
  if (!fs.existsSync(file)) writeFileAtomic.sync(file, CARD);
}
