// The files that make an export folder load as it is: a Hugging Face dataset card (README.md with
// configs/data_files front matter) and a LLaMA-Factory dataset_info.json entry.
import fs from 'node:fs';
import path from 'node:path';
import type { ExportFormat } from '../../../shared/domain';

interface DataFile {
  name: string;
  records?: number;
  bytes: number;
  sha256: string;
}

export function sizeCategory(n: number): string {
  if (n < 1_000) return 'n<1K';
  if (n < 10_000) return '1K<n<10K';
  if (n < 100_000) return '10K<n<100K';
  if (n < 1_000_000) return '100K<n<1M';
  return '1M<n<10M';
}

const splitOf = (name: string) => name.replace(/\.[^.]+$/, '');

/** LLaMA-Factory entries for the formats it reads; merged into an existing dataset_info.json. Returns the path or null. */
export function writeDatasetInfo(outDir: string, format: ExportFormat, files: DataFile[]): string | null {
  const entry = (file: string): Record<string, unknown> | null => {
    if (format === 'alpaca') {
      return { file_name: file, formatting: 'alpaca', columns: { prompt: 'instruction', query: 'input', response: 'output' } };
    }
    if (format === 'sharegpt') {
      return {
        file_name: file,
        formatting: 'sharegpt',
        columns: { messages: 'conversations' },
        tags: { role_tag: 'from', content_tag: 'value', user_tag: 'human', assistant_tag: 'gpt', system_tag: 'system' },
      };
    }
    if (format === 'openai') {
      return {
        file_name: file,
        formatting: 'sharegpt',
        columns: { messages: 'messages' },
        tags: { role_tag: 'role', content_tag: 'content', user_tag: 'user', assistant_tag: 'assistant', system_tag: 'system' },
      };
    }
    return null;
  };
  if (!entry('x')) return null;
  const file = path.join(outDir, 'dataset_info.json');
  let info: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    try {
      info = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      info = {};
    }
  }
  for (const f of files) info[`reflection_${format}_${splitOf(f.name)}`] = entry(f.name);
  fs.writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

export interface CardInput {
  format: ExportFormat;
  files: DataFile[];
  total: number;
  avgQuality: number | null;
  includePii: boolean;
  sampleTypes: string[];
  trainSplit: number;
  seed: string;
  exportedAt: number;
}

export function writeDatasetCard(outDir: string, c: CardInput): string {
  const front = [
    '---',
    'license: other',
    'language:',
    '- en',
    '- zh',
    'size_categories:',
    `- ${sizeCategory(c.total)}`,
    'task_categories:',
    '- text-generation',
    'tags:',
    '- memory',
    '- openclaw-reflection',
    `- ${c.format}`,
    'configs:',
    '- config_name: default',
    '  data_files:',
    ...c.files.flatMap((f) => [`  - split: ${splitOf(f.name)}`, `    path: ${f.name}`]),
    '---',
  ];
  const body = [
    '',
    `# OpenClaw Reflection dataset (${c.format})`,
    '',
    'Supervision data for memory_gate and write_guardian, collected and curated with Reflection Workbench.',
    '',
    `- Exported: ${new Date(c.exportedAt).toISOString()}`,
    `- Sample types: ${c.sampleTypes.join(', ')}`,
    `- Samples: ${c.total} (average quality ${c.avgQuality ?? 'n/a'})`,
    `- Split: ${c.trainSplit} train by session (seed \`${c.seed}\`); no conversation appears in both splits`,
    `- Personal data: ${c.includePii ? '**included as recorded** (exported with --include-pii)' : 'redacted with typed placeholders such as [EMAIL_1]'}`,
    '',
    '| file | records | bytes | sha256 |',
    '|---|---|---|---|',
    ...c.files.map((f) => `| ${f.name} | ${f.records ?? ''} | ${f.bytes} | ${f.sha256} |`),
    '',
  ];
  const file = path.join(outDir, 'README.md');
  fs.writeFileSync(file, [...front, ...body].join('\n'));
  return file;
}
