// The files that make an export folder load as it is: a Hugging Face dataset card (README.md with
// licence, detected languages and configs/data_files front matter), a LLaMA-Factory dataset_info.json
// whose entries point at this folder's per-format files, and a licence file when the licence is "other".
import fs from 'node:fs';
import path from 'node:path';
import { EXPORT_FORMATS, type DataSplit, type ExportFormat } from '../../shared/domain';
import type { DatasetCollectionConfig } from './config';
import type { ExportSummary } from '../../shared/contract';

interface DataFile {
  name: string;
  records?: number;
  bytes: number;
  sha256: string;
}

type LicenseSettings = DatasetCollectionConfig['export'];

export function sizeCategory(n: number): string {
  if (n < 1_000) return 'n<1K';
  if (n < 10_000) return '1K<n<10K';
  if (n < 100_000) return '10K<n<100K';
  if (n < 1_000_000) return '100K<n<1M';
  return '1M<n<10M';
}

/** "alpaca.train.jsonl" -> { format: "alpaca", split: "train" }; null for other files. */
export function parseDataFileName(name: string): { format: ExportFormat; split: DataSplit } | null {
  const m = /^(.+)\.(train|validation)\.(jsonl|csv|parquet)$/.exec(name);
  if (!m || !EXPORT_FORMATS.includes(m[1] as ExportFormat)) return null;
  return { format: m[1] as ExportFormat, split: m[2] as DataSplit };
}

/** LLaMA-Factory's dataset description for a file of a format (data/README.md of LLaMA-Factory); null if it cannot read it. */
export function llamaFactoryEntry(format: ExportFormat, file: string): Record<string, unknown> | null {
  switch (format) {
    case 'alpaca':
      return { file_name: file, formatting: 'alpaca', columns: { prompt: 'instruction', query: 'input', response: 'output' } };
    case 'sharegpt':
      return {
        file_name: file,
        formatting: 'sharegpt',
        columns: { messages: 'conversations', system: 'system' },
        tags: { role_tag: 'from', content_tag: 'value', user_tag: 'human', assistant_tag: 'gpt' },
      };
    case 'openai':
      return {
        file_name: file,
        formatting: 'sharegpt',
        columns: { messages: 'messages' },
        tags: { role_tag: 'role', content_tag: 'content', user_tag: 'user', assistant_tag: 'assistant', system_tag: 'system' },
      };
    case 'ranking':
      return {
        file_name: file,
        formatting: 'alpaca',
        ranking: true,
        columns: { prompt: 'instruction', query: 'input', chosen: 'chosen', rejected: 'rejected' },
      };
    case 'kto':
      return { file_name: file, formatting: 'alpaca', columns: { prompt: 'prompt', response: 'completion', kto_tag: 'label' } };
    case 'parquet':
      // the Parquet rows carry the Alpaca triple as columns (and messages/conversations beside it)
      return { file_name: file, formatting: 'alpaca', columns: { prompt: 'instruction', query: 'input', response: 'output' } };
    default:
      return null;
  }
}

/**
 * Merges this export's entries into dataset_info.json: an entry per written file, and the entry of a
 * split this export did not write removed, so no entry points at a stale or missing file.
 */
export function writeDatasetInfo(outDir: string, format: ExportFormat, files: DataFile[]): string | null {
  if (!llamaFactoryEntry(format, 'x')) return null;
  const file = path.join(outDir, 'dataset_info.json');
  let info: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    try {
      info = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      info = {};
    }
  }
  for (const split of ['train', 'validation'] as const) delete info[`reflection_${format}_${split}`];
  for (const f of files) {
    const parsed = parseDataFileName(f.name);
    if (parsed) info[`reflection_${format}_${parsed.split}`] = llamaFactoryEntry(format, f.name);
  }
  // entries of any format whose file is gone (an older layout, a deleted file) would fail to load
  for (const [key, value] of Object.entries(info)) {
    const name = (value as { file_name?: unknown } | null)?.file_name;
    if (key.startsWith('reflection_') && (typeof name !== 'string' || !fs.existsSync(path.join(outDir, name)))) delete info[key];
  }
  fs.writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** For licence "other" with a local licence link: a short licence file beside the data, unless one is there. */
export function writeLicenseFile(outDir: string, lic: LicenseSettings): string | null {
  if (lic.license !== 'other' || isUrl(lic.licenseLink) || lic.licenseLink !== path.basename(lic.licenseLink)) return null;
  const file = path.join(outDir, lic.licenseLink);
  if (!fs.existsSync(file)) {
    fs.writeFileSync(
      file,
      `# ${lic.licenseName}\n\nThis dataset was exported from a private Reflection Workbench workspace. It holds conversations and memory ` +
        'decisions of the workspace owner. Use it only as the owner allows; do not publish or share it further. ' +
        'Set `datasetCollection.export.license` in workbench.json to a licence id to publish under another licence.\n',
    );
  }
  return file;
}

/** Every format's data files in the folder, so one card describes every export written here. */
function folderConfigs(outDir: string, current: ExportFormat): { format: ExportFormat; files: string[] }[] {
  const byFormat = new Map<ExportFormat, string[]>();
  for (const name of fs.readdirSync(outDir).sort()) {
    const p = parseDataFileName(name);
    if (p) byFormat.set(p.format, [...(byFormat.get(p.format) ?? []), name]);
  }
  return [...byFormat.entries()]
    .sort((a, b) => (a[0] === current ? -1 : b[0] === current ? 1 : a[0].localeCompare(b[0])))
    .map(([format, files]) => ({ format, files }));
}

/** Estimated totals say so: only examples that could reach the limit are counted with the tokenizer. */
function tokenLine(t: NonNullable<ExportSummary['tokens']>): string {
  const about = t.estimated ? 'about ' : '';
  return `- Tokens (${t.encoding}, for ${t.model}): ${about}${t.total} in all, longest example ${about}${t.max}; ${t.overLimit} over ${t.limit}`;
}

export interface CardInput {
  format: ExportFormat;
  files: DataFile[];
  total: number;
  avgQuality: number | null;
  includePii: boolean;
  seed: string;
  exportedAt: number;
  license: LicenseSettings;
  summary: ExportSummary;
}

const yamlString = (s: string) => JSON.stringify(s);

function frontMatter(outDir: string, c: CardInput): string[] {
  const lic = c.license;
  const languages = c.summary.languages.length ? c.summary.languages : ['en'];
  return [
    '---',
    `license: ${yamlString(lic.license)}`,
    ...(lic.license === 'other' ? [`license_name: ${yamlString(lic.licenseName)}`, `license_link: ${yamlString(lic.licenseLink)}`] : []),
    'language:',
    ...languages.map((l) => `- ${l}`),
    'size_categories:',
    `- ${sizeCategory(c.total)}`,
    'task_categories:',
    '- text-generation',
    'tags:',
    '- memory',
    '- openclaw-reflection',
    `- ${c.format}`,
    'configs:',
    ...folderConfigs(outDir, c.format).flatMap((cfg, i) => [
      `- config_name: ${cfg.format}`,
      ...(i === 0 ? ['  default: true'] : []),
      '  data_files:',
      ...cfg.files.flatMap((f) => [`  - split: ${parseDataFileName(f)!.split}`, `    path: ${f}`]),
    ]),
    '---',
  ];
}

function balanceLines(s: ExportSummary): string[] {
  const b = s.balance;
  const pct = (n: number, total: number) => (total ? ` (${Math.round((n / total) * 100)}%)` : '');
  const gate = b.memory_gate.write + b.memory_gate.no_write;
  const wg = b.write_guardian.write + b.write_guardian.refuse + b.write_guardian.skip;
  const lines = [];
  if (gate)
    lines.push(
      `- memory_gate: write ${b.memory_gate.write}${pct(b.memory_gate.write, gate)}, NO_WRITE ${b.memory_gate.no_write}${pct(b.memory_gate.no_write, gate)}`,
    );
  if (wg) lines.push(`- write_guardian: write ${b.write_guardian.write}, refuse ${b.write_guardian.refuse}, skip ${b.write_guardian.skip}`);
  if (b.kto) lines.push(`- KTO: desirable ${b.kto.desirable}, undesirable ${b.kto.undesirable}`);
  if (s.included.balanced) lines.push(`- balanced on request: ${s.balancedOut} samples of majority labels left out`);
  return lines.length ? lines : ['- (no gate or guardian records)'];
}

export function writeDatasetCard(outDir: string, c: CardInput): string {
  const s = c.summary;
  const split = s.split.validationWritten
    ? `${s.split.requested} train requested, ${s.split.achieved} reached, grouped by ${s.split.by} (seed \`${c.seed}\`)` +
      (s.split.by === 'session' ? '; no conversation appears in both splits' : '; turns of one conversation may be on both sides')
    : 'train only (no validation file)';
  const body = [
    '',
    `# OpenClaw Reflection dataset (${c.format})`,
    '',
    'Supervision data for memory_gate and write_guardian, collected and curated with Reflection Workbench.',
    "Each record trains one decision: the gate's decision, fact and reason, or the guardian's action.",
    '',
    `- Exported: ${new Date(c.exportedAt).toISOString()}`,
    `- Included: ${s.included.statuses.join(', ')} samples` +
      (s.included.minQuality !== null ? ` with quality >= ${s.included.minQuality}` : ', any quality'),
    `- Sample types: ${s.included.sampleTypes.join(', ')}`,
    `- Records: ${c.total} (average quality ${c.avgQuality ?? 'n/a'})`,
    `- Split: ${split}`,
    `- Near duplicates: ${s.folded.total} samples folded into their cluster's representative (${s.folded.approved} of them approved); ${s.identicalDropped.count} identical records dropped`,
    `- Personal data: ${c.includePii ? '**included as recorded** (exported with --include-pii)' : 'redacted with typed placeholders such as [EMAIL_1]'}`,
    ...(s.tokens ? [tokenLine(s.tokens)] : []),
    `- Languages (main language per sample): ${s.languages.join(', ') || 'n/a'}`,
    '',
    '## Label balance',
    '',
    ...balanceLines(s),
    ...(s.notes.length ? ['', '## Notes', '', ...s.notes.map((n) => `- ${n}`)] : []),
    '',
    '| file | records | bytes | sha256 |',
    '|---|---|---|---|',
    ...c.files.map((f) => `| ${f.name} | ${f.records ?? ''} | ${f.bytes} | ${f.sha256} |`),
    '',
  ];
  const file = path.join(outDir, 'README.md');
  fs.writeFileSync(file, [...frontMatter(outDir, c), ...body].join('\n'));
  return file;
}
