import path from 'node:path';
import readline from 'node:readline';
import type { Command } from 'commander';
import Table from 'cli-table3';
import pc from 'picocolors';
import { action, printJson, withDatabase, withWorkspace, type GlobalOptions } from '../context';
import { AppError } from '../../shared/errors';
import { parseTime } from '../../core/text/time';
import {
  ANNOTATION_STATUSES,
  EXPORT_FORMATS,
  MEMORY_FILES,
  SAMPLE_TYPES,
  type AnnotationStatus,
  type ExportFormat,
  type MemoryFileName,
  type SampleType,
} from '../../shared/domain';
import { loadSettings } from '../../core/lifecycle/settings';
import { refuseFilledFolder } from '../../core/lifecycle/outputFiles';
import type { ServiceContext } from '../../core/context';
import {
  collectSamples,
  datasetStats,
  exportDataset,
  listSamples,
  qualityReport,
  reviewSample,
  taskOf,
  markMissedWrite,
  pickRepresentative,
  reclusterSamples,
  resolveDatasetConfig,
  sampleCluster,
  type DatasetSample,
  writerQuality,
  exportEvalSet,
} from '../../core/dataset';
import type { ExportSummary, WriterQuality } from '../../shared/contract';

function parseUnit(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new AppError('Invalid', `${name}: expected a number from 0 to 1 (got ${value})`);
  return n;
}

function datasetConfig(dir: string) {
  const loaded = loadSettings(dir);
  for (const w of loaded.warnings) process.stderr.write(`warning: ${w}\n`);
  return loaded.settings.datasetCollection;
}

function progressPrinter(label: string): ServiceContext['progress'] {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const t = Date.now();
    if (t - last < 200 && done !== total) return;
    last = t;
    process.stderr.write(`\r${label}: ${done}${total ? ` / ${total}` : ''}   `);
    if (done === total) process.stderr.write('\n');
  };
}

const short = (s: string, n = 60) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

function printSamples(items: DatasetSample[]): void {
  const table = new Table({ head: ['id', 'type', 'status', 'quality', 'pii', 'session', 'output'] });
  for (const s of items) {
    const task = taskOf(s.piiRedactedContent ?? s.content);
    table.push([
      s.id,
      s.sampleType,
      s.annotationStatus,
      s.qualityScore?.toFixed(2) ?? '',
      s.containsPii ? 'yes' : '',
      short(s.sessionId, 28),
      short(task.output, 50),
    ]);
  }
  process.stdout.write(`${table.toString()}\n`);
}

function showSample(s: DatasetSample): string {
  const task = taskOf(s.piiRedactedContent ?? s.content);
  const f = s.qualityFactors;
  return [
    pc.bold(`${s.id}  ${s.sampleType}  [${s.annotationStatus}]`),
    `session ${s.sessionId}  quality ${s.qualityScore ?? 'n/a'}` +
      (f ? ` (clarity ${f.conversationClarity}, confidence ${f.decisionConfidence}, verifiability ${f.factVerifiability})` : ''),
    s.labels.reviewReasons?.length ? pc.yellow(`review: ${s.labels.reviewReasons.join(', ')}`) : '',
    s.containsPii
      ? pc.yellow(
          `PII: ${s.piiSpans
            .filter((p) => p.accepted)
            .map((p) => p.type)
            .join(', ')} (shown redacted)`,
        )
      : '',
    pc.dim(task.instruction),
    task.input,
    pc.cyan(task.output),
  ]
    .filter(Boolean)
    .join('\n');
}

/** Reads one answer: a single key on a terminal, a line otherwise (piped input). */
function answerReader(): { next: (prompt: string) => Promise<string | null>; close: () => void } {
  const input = process.stdin;
  if (input.isTTY) {
    readline.emitKeypressEvents(input);
    input.setRawMode(true);
    return {
      next: (prompt) =>
        new Promise((resolve) => {
          process.stdout.write(prompt);
          input.once('keypress', (str: string | undefined, key: { ctrl?: boolean; name?: string }) => {
            process.stdout.write('\n');
            if (key?.ctrl && key.name === 'c') resolve('q');
            else resolve((str ?? key?.name ?? '').toLowerCase());
          });
          input.resume();
        }),
      close: () => {
        input.setRawMode(false);
        input.pause();
      },
    };
  }
  const rl = readline.createInterface({ input, terminal: false });
  const lines: string[] = [];
  const waiters: ((l: string | null) => void)[] = [];
  let ended = false;
  rl.on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l.trim().toLowerCase());
    else lines.push(l.trim().toLowerCase());
  });
  rl.on('close', () => {
    ended = true;
    for (const w of waiters.splice(0)) w(null);
  });
  return {
    next: (prompt) => {
      process.stdout.write(prompt);
      if (lines.length) return Promise.resolve(lines.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiters.push(resolve));
    },
    close: () => rl.close(),
  };
}

const num = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

function printWriterQuality(w: WriterQuality): void {
  process.stdout.write(
    `writer quality from ${w.judgedDecisions} curator-judged decisions: gate accuracy ${num(w.gateAccuracy)}, over-write rate ${num(w.overWriteRate)} (${w.overWrites} of ${w.judgedWrites} writes)\n`,
  );
  const gate = new Table({ head: ['gate decision', 'predicted', 'should be', 'precision', 'recall'] });
  for (const g of w.gate) gate.push([g.decision, g.predicted, g.support, num(g.precision), num(g.recall)]);
  const guardian = new Table({ head: ['guardian action', 'judged', 'correct', 'accuracy'] });
  for (const g of w.guardian) guardian.push([g.action, g.judged, g.correct, num(g.accuracy)]);
  const churn = new Table({ head: ['file', 'writes', 'rollbacks', 'corrections', 'churn'] });
  for (const c of w.churn) churn.push([c.file, c.writes, c.rollbacks, c.corrections, num(c.churn)]);
  const weekly = new Table({ head: ['week', 'judged', 'gate accuracy', 'over-write rate'] });
  for (const x of w.weekly) weekly.push([x.week, x.judged, num(x.accuracy), num(x.overWriteRate)]);
  process.stdout.write(`${gate.toString()}\n${guardian.toString()}\n${churn.toString()}\n${weekly.toString()}\n`);
}

function printExportSummary(s: ExportSummary): void {
  const b = s.balance;
  process.stdout.write(
    `included: ${s.included.statuses.join(', ')}${s.included.minQuality !== null ? ` with quality >= ${s.included.minQuality}` : ', any quality'}\n` +
      `balance: memory_gate write ${b.memory_gate.write} / NO_WRITE ${b.memory_gate.no_write}; ` +
      `write_guardian write ${b.write_guardian.write} / refuse ${b.write_guardian.refuse} / skip ${b.write_guardian.skip}` +
      (b.kto ? `; KTO desirable ${b.kto.desirable} / undesirable ${b.kto.undesirable}` : '') +
      '\n' +
      `near duplicates: ${s.folded.total} folded (${s.folded.approved} approved` +
      (s.folded.samples.length
        ? `: ${s.folded.samples
            .slice(0, 10)
            .map((x) => `${x.sampleId} -> ${x.keptSampleId}`)
            .join(', ')}${s.folded.samples.length > 10 ? ', …' : ''}`
        : '') +
      `); ${s.identicalDropped.count} identical records dropped\n` +
      (s.tokens ? `tokens (${s.tokens.encoding}): ${s.tokens.total} in all, longest ${s.tokens.max} of ${s.tokens.limit}\n` : '') +
      `languages: ${s.languages.join(', ') || 'n/a'}\n` +
      s.notes.map((n) => `note: ${n}\n`).join(''),
  );
}

type CollectCommandOptions = GlobalOptions & {
  since?: string;
  until?: string;
  session?: string;
  type: string;
  autoApprove?: boolean;
  dryRun?: boolean;
};
type ListOptions = GlobalOptions & {
  status?: string;
  type?: string;
  qualityAbove?: string;
  limit: string;
  needsReview?: boolean;
  cursor?: string;
};
type StatsOptions = GlobalOptions & { daily?: boolean; byType?: boolean; byStatus?: boolean; qualityDistribution?: boolean };
type ExportCommandOptions = GlobalOptions & {
  format: string;
  output?: string;
  overwrite?: boolean;
  trainSplit: string;
  seed: string;
  onlyApproved?: boolean;
  minQuality?: string;
  since?: string;
  until?: string;
  includePii?: boolean;
  bom?: boolean;
  splitBy: string;
  includeUnreviewed?: boolean;
  includeBelowQuality?: boolean;
  balance?: boolean;
};
type MissedWriteOptions = GlobalOptions & { fact: string; file: string; reason: string };
type EvalExportCommandOptions = GlobalOptions & {
  output: string;
  trainSplit: string;
  splitBy: string;
  seed: string;
  includeUnreviewed?: boolean;
};

export function register(program: Command): void {
  const dataset = program.command('dataset').description('collect, review and export fine-tuning datasets');
  registerCollection(dataset);
  registerReports(dataset);
  registerExports(dataset);
}

/** collect, list, approve, reject, review. */
function registerCollection(dataset: Command): void {
  withWorkspace(
    dataset
      .command('collect')
      .description('collect samples from recorded decisions, writes, rollbacks and corrections')
      .option('--since <time>', 'from this time (ISO 8601, ms, or 7d / 24h back from now)')
      .option('--until <time>', 'up to this time (exclusive)')
      .option('-s, --session <key>', 'only this session')
      .option('-t, --type <type>', 'all | positive | negative', 'all')
      .option('--auto-approve', 'approve samples that meet the auto-approve criteria')
      .option('--dry-run', 'report what would be collected, write nothing'),
  ).action(action(datasetCollect));

  withWorkspace(
    dataset
      .command('list')
      .description('list samples, newest first')
      .option('--status <status>', ANNOTATION_STATUSES.join(' | '))
      .option('--type <type>', SAMPLE_TYPES.join(' | '))
      .option('--quality-above <x>', 'minimum quality score (0-1)')
      .option('-l, --limit <n>', 'how many', '20')
      .option('--needs-review', 'only samples waiting for review')
      .option('--cursor <cursor>', 'continue after a previous page'),
  ).action(action(datasetList));

  for (const verb of ['approve', 'reject'] as const) {
    withWorkspace(
      dataset.command(`${verb} <sampleId>`).description(`${verb} one sample`).option('--notes <text>', 'annotation notes'),
    ).action(action((sampleId: string, opts: GlobalOptions & { notes?: string }) => datasetReviewOne(verb, sampleId, opts)));
  }

  withWorkspace(
    dataset
      .command('review')
      .description('interactive review of samples waiting for review, then pending ones: a approve, r reject, s skip, q quit')
      .option('--status <status>', 'review this status instead', 'needs_review'),
  ).action(action(datasetReview));
}

/** stats, quality. */
function registerReports(dataset: Command): void {
  withWorkspace(
    dataset
      .command('stats')
      .description('dataset statistics')
      .option('--daily', 'samples per day')
      .option('--by-type', 'per sample type')
      .option('--by-status', 'per annotation status')
      .option('--quality-distribution', 'quality score histogram'),
  ).action(action(datasetStatsCommand));

  withWorkspace(
    dataset
      .command('quality')
      .description(
        'quality report: the writer judged by the curator (gate precision/recall, guardian accuracy, over-writes, churn, weekly trend), factor distributions and the weakest samples',
      )
      .option('-l, --limit <n>', 'how many weakest samples', '10'),
  ).action(action(datasetQuality));
}

/** export, missed-write, cluster, recluster, eval-export. */
function registerExports(dataset: Command): void {
  withWorkspace(
    dataset
      .command('export')
      .description('write train/validation files, a dataset card and dataset_info.json')
      .requiredOption('--format <format>', EXPORT_FORMATS.join(' | '))
      .option('-o, --output <folder>', 'output folder (default .openclaw-reflection/exports/dataset-<format>-<time>)')
      .option('--overwrite', 'replace the files of an earlier export in the output folder')
      .option('--train-split <x>', 'share of samples in train, grouped by session', '0.8')
      .option('--split-by <unit>', 'session (default: no conversation on both sides) | turn (for one or two sessions)', 'session')
      .option('--seed <seed>', 'split and balance seed', 'reflection')
      .option('--only-approved', 'only approved and auto-approved samples (the default)')
      .option('--include-unreviewed', 'also pending and needs_review samples')
      .option('--min-quality <x>', 'minimum quality score (default: datasetCollection.positiveCriteria.minQualityScore)')
      .option('--include-below-quality', 'no quality floor')
      .option('--balance', 'downsample the majority label of each step (write / NO_WRITE; write / refuse) to the minority count')
      .option('--since <time>', 'only conversations from this time (ISO 8601, ms, or 7d / 24h back from now)')
      .option('--until <time>', 'only conversations before this time')
      .option('--include-pii', 'export personal data as recorded instead of redacted (recorded in the export row)')
      .option('--bom', 'CSV: start with a UTF-8 BOM (Excel)'),
  ).action(action(datasetExport));

  withWorkspace(
    dataset
      .command('missed-write <decisionId>')
      .description('mark a NO_WRITE decision as a missed write: its sample becomes a positive with this fact and file')
      .requiredOption('--fact <text>', 'the fact the gate should have written')
      .requiredOption('--file <file>', MEMORY_FILES.join(' | '))
      .requiredOption('--reason <text>', 'why it should have been written'),
  ).action(action(datasetMissedWrite));

  withWorkspace(
    dataset
      .command('cluster <sampleId>')
      .description("show a sample's near-duplicate cluster and which member an export keeps")
      .option('--pick', 'make this sample the representative its cluster exports'),
  ).action(action(datasetCluster));

  withWorkspace(
    dataset.command('recluster').description('recompute near-duplicate clusters of every sample (after a dedupe setting changed)'),
  ).action(action(datasetRecluster));

  withWorkspace(
    dataset
      .command('eval-export')
      .description("write the held-out validation split, gold-labelled and redacted, in the plugin's evals/datasets format")
      .requiredOption('-o, --output <folder>', 'dataset root for the plugin runner (shared/, memory-gate/, write-guardian/)')
      .option('--train-split <x>', 'share of samples kept for training (the rest is held out)', '0.8')
      .option('--split-by <unit>', 'session | turn', 'session')
      .option('--seed <seed>', 'split seed (the same as the training export to hold out the same sessions)', 'reflection')
      .option('--include-unreviewed', 'also pending and needs_review samples'),
  ).action(action(datasetEvalExport));
}

async function datasetCollect(opts: CollectCommandOptions): Promise<void> {
  if (!['all', 'positive', 'negative'].includes(opts.type))
    throw new AppError('Invalid', `--type: expected all, positive or negative (got ${opts.type})`);
  const result = await withDatabase(opts, ({ db }, dir) =>
    collectSamples(
      { db, workspaceDir: dir, progress: opts.json ? undefined : progressPrinter('decisions') },
      {
        since: parseTime(opts.since, '--since', Date.now()),
        until: parseTime(opts.until, '--until', Date.now()),
        sessionId: opts.session,
        type: opts.type as 'all' | 'positive' | 'negative',
        autoApprove: opts.autoApprove,
        dryRun: opts.dryRun,
        config: datasetConfig(dir),
      },
    ),
  );
  if (opts.json) return printJson(result);
  const verb = result.dryRun ? 'would add' : 'added';
  process.stdout.write(
    `${result.decisionsScanned} decisions scanned; ${verb} ${result.addedTotal} samples ` +
      `(${
        Object.entries(result.added)
          .filter(([, n]) => n)
          .map(([t, n]) => `${t} ${n}`)
          .join(', ') || 'none'
      }); ` +
      `${result.alreadyCollected} already collected; ${result.duplicates} near or exact duplicates clustered; ` +
      `${result.signalsStored} feedback signals stored\n` +
      `status: ${
        Object.entries(result.byStatus)
          .map(([s, n]) => `${s} ${n}`)
          .join(', ') || 'n/a'
      }\n`,
  );
  if (!result.privacyChecked) process.stderr.write('warning: no PII detector available; samples are marked privacy_checked = 0\n');
}

async function datasetList(opts: ListOptions): Promise<void> {
  const page = await withDatabase(opts, ({ db }, dir) =>
    listSamples(
      { db, workspaceDir: dir },
      {
        status: opts.status as AnnotationStatus | undefined,
        type: opts.type as SampleType | undefined,
        qualityAbove: parseUnit(opts.qualityAbove, '--quality-above'),
        limit: Number(opts.limit),
        needsReview: opts.needsReview,
        cursor: opts.cursor,
      },
    ),
  );
  if (opts.json) return printJson(page);
  printSamples(page.items);
  if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
}

async function datasetReviewOne(verb: 'approve' | 'reject', sampleId: string, opts: GlobalOptions & { notes?: string }): Promise<void> {
  const s = await withDatabase(opts, ({ db }, dir) =>
    reviewSample({ db, workspaceDir: dir }, { sampleId, action: verb, notes: opts.notes }),
  );
  if (opts.json) printJson(s);
  else process.stdout.write(`${s.id}: ${s.annotationStatus}\n`);
}

type ReviewCounts = { approved: number; rejected: number; skipped: number };

async function datasetReview(opts: GlobalOptions & { status: string }): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = { db, workspaceDir: dir };
    const reader = answerReader();
    const counts: ReviewCounts = { approved: 0, rejected: 0, skipped: 0 };
    try {
      const statuses = opts.status === 'needs_review' ? ['needs_review', 'pending'] : [opts.status];
      for (const status of statuses) if (!(await reviewStatus(ctx, reader, status as AnnotationStatus, counts))) break;
    } finally {
      reader.close();
    }
    process.stdout.write(`\napproved ${counts.approved}, rejected ${counts.rejected}, skipped ${counts.skipped}\n`);
  });
}

/** Asks about every sample of one status, page by page; false when the curator quit (or input ended). */
async function reviewStatus(
  ctx: ServiceContext,
  reader: ReturnType<typeof answerReader>,
  status: AnnotationStatus,
  counts: ReviewCounts,
): Promise<boolean> {
  let cursor: string | undefined;
  do {
    const page = listSamples(ctx, { status, limit: 20, cursor });
    for (const s of page.items) {
      process.stdout.write(`\n${showSample(s)}\n`);
      let answer: string | null;
      do answer = await reader.next('[a]pprove [r]eject [s]kip [q]uit > ');
      while (answer !== null && !['a', 'r', 's', 'q'].includes(answer));
      if (answer === null || answer === 'q') return false;
      if (answer === 's') counts.skipped++;
      else {
        await reviewSample(ctx, { sampleId: s.id, action: answer === 'a' ? 'approve' : 'reject' });
        counts[answer === 'a' ? 'approved' : 'rejected']++;
      }
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return true;
}

async function datasetStatsCommand(opts: StatsOptions): Promise<void> {
  const stats = await withDatabase(opts, ({ db }, dir) => datasetStats({ db, workspaceDir: dir }));
  if (opts.json) return printJson(stats);
  const all = !opts.daily && !opts.byType && !opts.byStatus && !opts.qualityDistribution;
  process.stdout.write(
    `${stats.total} samples in ${stats.clusters} clusters; ${stats.containsPii} contain PII; ${stats.unscored} unscored\n`,
  );
  const print = (head: string[], rows: (string | number | null)[][]) => {
    const t = new Table({ head });
    for (const r of rows) t.push(r.map((x) => (x === null ? '' : x)));
    process.stdout.write(`${t.toString()}\n`);
  };
  if (all || opts.byType)
    print(
      ['type', 'count', 'avg quality'],
      stats.byType.map((r) => [r.sampleType, r.count, r.avgQuality]),
    );
  if (all || opts.byStatus)
    print(
      ['status', 'count'],
      Object.entries(stats.byStatus).map(([status, count]) => [status, count ?? 0]),
    );
  if (opts.daily)
    print(
      ['date', 'samples', 'approved', 'rejected'],
      stats.daily.map((r) => [r.date, r.count, r.approved, r.rejected]),
    );
  if (all || opts.qualityDistribution) {
    const max = Math.max(1, ...stats.qualityDistribution.map((b) => b.count));
    print(
      ['quality', 'count', ''],
      stats.qualityDistribution.map((b) => [
        `${b.from.toFixed(1)}-${b.to.toFixed(1)}`,
        b.count,
        '#'.repeat(Math.round((b.count / max) * 40)),
      ]),
    );
  }
}

async function datasetQuality(opts: GlobalOptions & { limit: string }): Promise<void> {
  const { report, writer } = await withDatabase(opts, ({ db }, dir) => ({
    report: qualityReport({ db, workspaceDir: dir }, { weakest: Number(opts.limit) }),
    writer: writerQuality({ db, workspaceDir: dir }),
  }));
  if (opts.json) return printJson({ ...report, writer });
  printWriterQuality(writer);
  const t = new Table({ head: ['factor', 'n', 'avg', 'min', 'max', 'histogram 0.0 … 1.0'] });
  for (const f of report.factors) t.push([f.factor, f.count, f.avg ?? '', f.min ?? '', f.max ?? '', f.histogram.join(' ')]);
  process.stdout.write(`${t.toString()}\nweakest samples:\n`);
  printSamples(report.weakest);
}

async function datasetExport(opts: ExportCommandOptions): Promise<void> {
  if (!EXPORT_FORMATS.includes(opts.format as ExportFormat))
    throw new AppError('Invalid', `--format: expected one of ${EXPORT_FORMATS.join(', ')}`);
  if (opts.output) refuseFilledFolder(path.resolve(opts.output), opts.overwrite);
  const result = await withDatabase(opts, ({ db }, dir) =>
    exportDataset(
      { db, workspaceDir: dir, progress: opts.json ? undefined : progressPrinter('samples') },
      {
        format: opts.format as ExportFormat,
        outDir: opts.output,
        trainSplit: parseUnit(opts.trainSplit, '--train-split'),
        seed: opts.seed,
        onlyApproved: opts.onlyApproved,
        minQuality: parseUnit(opts.minQuality, '--min-quality'),
        since: parseTime(opts.since, '--since', Date.now()),
        until: parseTime(opts.until, '--until', Date.now()),
        includePii: opts.includePii,
        bom: opts.bom,
        splitBy: opts.splitBy as 'session' | 'turn',
        includeUnreviewed: opts.includeUnreviewed,
        includeBelowQuality: opts.includeBelowQuality,
        balance: opts.balance,
        config: datasetConfig(dir),
      },
    ),
  );
  if (opts.json) return printJson(result);
  printExportSummary(result.summary);
  process.stdout.write(
    `exported ${result.total} samples (${result.train} train, ${result.validation} validation) to ${result.outDir}\n` +
      result.files.map((f) => `  ${f.name}  ${f.bytes} bytes  sha256 ${f.sha256}`).join('\n') +
      '\n',
  );
  if (result.includePii) process.stderr.write('warning: personal data was exported as recorded (--include-pii)\n');
  const tokens = result.summary.tokens;
  if (tokens && tokens.overLimit) {
    process.stderr.write(
      `warning: ${tokens.overLimit} examples exceed ${tokens.limit} tokens (${tokens.encoding}, ${tokens.model}): ${tokens.sampleIds.join(', ')}\n`,
    );
  }
}

async function datasetMissedWrite(decisionId: string, opts: MissedWriteOptions): Promise<void> {
  if (!MEMORY_FILES.includes(opts.file as MemoryFileName))
    throw new AppError('Invalid', `--file: expected one of ${MEMORY_FILES.join(', ')}`);
  const r = await withDatabase(opts, ({ db }, dir) =>
    markMissedWrite(
      { db, workspaceDir: dir },
      { decisionId, fact: opts.fact, file: opts.file as MemoryFileName, reason: opts.reason, config: datasetConfig(dir) },
    ),
  );
  if (opts.json) return printJson(r);
  process.stdout.write(
    `missed write ${r.correctionId}: ${r.decision}; ${r.addedSamples} samples added, ${r.supersededSamples} superseded\n`,
  );
}

async function datasetCluster(sampleId: string, opts: GlobalOptions & { pick?: boolean }): Promise<void> {
  const view = await withDatabase(opts, ({ db }, dir) =>
    (opts.pick ? pickRepresentative : sampleCluster)({ db, workspaceDir: dir }, sampleId),
  );
  if (opts.json) return printJson(view);
  const t = new Table({ head: ['', 'id', 'type', 'status', 'quality', 'corrected', 'edited'] });
  for (const m of view.members) {
    t.push([
      m.id === view.representativeId ? '*' : '',
      m.id,
      m.sampleType,
      m.annotationStatus,
      m.qualityScore ?? '',
      m.corrected ? 'yes' : '',
      m.edited ? 'yes' : '',
    ]);
  }
  process.stdout.write(`${t.toString()}\n* exported (${view.representativeBecause}); ${view.members.length - 1} near-duplicates\n`);
}

async function datasetRecluster(opts: GlobalOptions): Promise<void> {
  const r = await withDatabase(opts, ({ db }, dir) => reclusterSamples(db, resolveDatasetConfig(datasetConfig(dir)).dedupe));
  if (opts.json) return printJson(r);
  process.stdout.write(`${r.samples} samples reclustered; ${r.duplicates} near or exact duplicates\n`);
}

async function datasetEvalExport(opts: EvalExportCommandOptions): Promise<void> {
  const r = await withDatabase(opts, ({ db }, dir) =>
    exportEvalSet(
      { db, workspaceDir: dir },
      {
        outDir: path.resolve(opts.output),
        trainSplit: parseUnit(opts.trainSplit, '--train-split'),
        splitBy: opts.splitBy as 'session' | 'turn',
        seed: opts.seed,
        includeUnreviewed: opts.includeUnreviewed,
        config: datasetConfig(dir),
      },
    ),
  );
  if (opts.json) return printJson(r);
  process.stdout.write(
    `${r.scenarios} scenarios (${r.memoryGateCases} memory_gate, ${r.writeGuardianCases} write_guardian) in ${r.outDir}\n`,
  );
}
