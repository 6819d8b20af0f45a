// `npm run bench:pii`: precision and recall of the PII detector on public labelled data and our own sets.
// Pass --verbose to list every miss and false positive.
import fs from 'node:fs';
import path from 'node:path';
import Table from 'cli-table3';
import {
  precision,
  recall,
  scoreDetectSecrets,
  emptyTally,
  family,
  presidioCases,
  synthCases,
  readFixture,
  scoreLabelled,
  withInvisible,
  type LabelledText,
  scoreGitleaks,
  scorePresidioFile,
  scoreSynth,
  scoreUntargetedFile,
  PRESIDIO_TARGETS,
  type Tally,
} from './pii-eval';
import { generatedCases } from './pii-generated';
import { fmt, timeIt } from './util';
import { detectPii, type DetectOptions } from '../src/core/pii/index';

const repoRoot = path.resolve(__dirname, '..');
const piiDir = path.resolve(repoRoot, '..', 'shared', 'benchmarks', 'pii');
const presidioDir = path.join(piiDir, 'presidio-tests');
const verbose = process.argv.includes('--verbose');

if (!fs.existsSync(piiDir)) {
  console.error(`benchmark data not found: ${path.relative(process.cwd(), piiDir)} (expected ../shared/benchmarks/pii beside the repo)`);
  process.exit(1);
}

const AIM = { recall: 0.95, precision: 0.9, secretsRecall: 0.9 };
const mark = (ok: boolean) => (ok ? 'yes' : 'NO');
const row = (label: string, t: Tally, aim = true) => [
  label,
  t.tp + t.fn,
  t.tp,
  t.fp,
  t.fn,
  fmt(precision(t)),
  fmt(recall(t)),
  t.tp ? fmt(t.exact / t.tp) : 'n/a',
  aim ? mark((Number.isNaN(recall(t)) || recall(t) >= AIM.recall) && (Number.isNaN(precision(t)) || precision(t) >= AIM.precision)) : '-',
];
const head = ['entity', 'gold', 'TP', 'FP', 'FN', 'precision', 'recall', 'exact bounds', 'aim met'];
const list = (title: string, items: string[]) => {
  if (verbose && items.length) console.log(`  ${title}:\n${items.map((i) => `    ${i}`).join('\n')}`);
};

const t0 = performance.now();
console.log('\nPII benchmark: presidio-analyzer recognizer tests (offsets converted from code points)');
const style = { head: [], border: [] };
const presidio = new Table({ head, style });
for (const name of Object.keys(PRESIDIO_TARGETS)) {
  const r = scorePresidioFile(presidioDir, name);
  presidio.push(row(`${r.label} (${r.rows} rows${r.skipped ? `, ${r.skipped} skipped` : ''})`, r.tally, name !== 'iban'));
  list(`${name} misses`, r.misses);
  list(`${name} false positives`, r.falsePositives);
}
console.log(presidio.toString());
console.log('phone rows skipped: they test non-default libphonenumber leniency (presidio default is VALID).');

const untargeted = new Table({ head: ['not targeted (presidio file)', 'rows', 'rows where we flag something', 'examples'], style });
for (const file of fs.readdirSync(presidioDir).sort()) {
  const name = file.replace(/^test_|_recognizer\.jsonl$/g, '');
  if (PRESIDIO_TARGETS[name]) continue;
  const r = scoreUntargetedFile(presidioDir, file);
  untargeted.push([name, r.rows, r.flagged, r.examples.join('\n')]);
}
console.log(untargeted.toString());

console.log('\npresidio-research synth_dataset_v2 (1,500 English samples, names detection on)');
const synth = scoreSynth(path.join(piiDir, 'presidio-research_synth_dataset_v2.json'));
const synthTable = new Table({ head, style });
for (const [entity, t] of Object.entries(synth.perType)) {
  const extra = entity === 'PERSON' ? ' (optional, low confidence)' : entity === 'IBAN_CODE' ? ' (extra, no aim)' : '';
  synthTable.push(row(entity + extra, t, !extra));
  list(`${entity} misses`, (synth.misses[entity] ?? []).slice(0, 60));
}
console.log(synthTable.toString());
console.log(
  `not targeted: ${Object.entries(synth.untargeted)
    .map(([k, v]) => `${k} (${v})`)
    .join(', ')}`,
);

console.log('\nSecrets');
const ds = scoreDetectSecrets(path.join(piiDir, 'detect-secrets'));
const dsTable = new Table({ head: ['detect-secrets file', 'expected', 'found', 'missed', 'other spans flagged'], style });
for (const f of ds.perFile) dsTable.push([f.file, f.expected, f.found, f.missed.join('\n'), f.extra.join('\n')]);
console.log(dsTable.toString());
const dsRecall = ds.found / ds.expected;
console.log(
  `detect-secrets recall: ${ds.found}/${ds.expected} = ${fmt(dsRecall)} (aim >= ${AIM.secretsRecall}: ${mark(dsRecall >= AIM.secretsRecall)})`,
);
const gl = scoreGitleaks(path.join(piiDir, 'gitleaks', 'generic-api-key_cases.jsonl'));
const glRecall = gl.found / gl.secretRows;
console.log(
  `gitleaks generic-api-key: recall on secret ${gl.found}/${gl.secretRows} = ${fmt(glRecall)} (aim met: ${mark(glRecall >= AIM.secretsRecall)}); false-positive rate on not_secret ${gl.flagged}/${gl.negativeRows} = ${fmt(gl.flagged / gl.negativeRows)}`,
);
list('gitleaks missed', gl.missedTexts);
list('gitleaks flagged not_secret', gl.flaggedTexts);

// The public sets again, with an invisible character inside every gold value.
const hiddenTable = new Table({
  head: ['public set, invisible variant', 'gold', 'P as written', 'R as written', 'P invisible', 'R invisible', 'leaks'],
  style,
});
const publicRows: [string, LabelledText[], string[], DetectOptions][] = [
  ...(['email', 'phone', 'credit_card', 'ip'] as const).map(
    (n) =>
      [`presidio ${n}`, presidioCases(presidioDir, n), [family(PRESIDIO_TARGETS[n]!.types[0]!)], {}] as [
        string,
        LabelledText[],
        string[],
        DetectOptions,
      ],
  ),
  [
    'synth (email, phone, card, IP, IBAN)',
    synthCases(path.join(piiDir, 'presidio-research_synth_dataset_v2.json')),
    ['EMAIL', 'PHONE', 'CARD', 'IP_ADDRESS', 'IBAN'],
    { names: 'none' },
  ],
];
for (const [label, cases, only, opts] of publicRows) {
  const a = scoreLabelled(cases, opts, only);
  const b = scoreLabelled(
    cases.map((c, i) => withInvisible(c, i)),
    opts,
    only,
  );
  const sum = (r: typeof a) =>
    Object.values(r.perType).reduce(
      (t, x) => ({ tp: t.tp + x.tp, fp: t.fp + x.fp, fn: t.fn + x.fn, exact: t.exact + x.exact }),
      emptyTally(),
    );
  const [ta, tb] = [sum(a), sum(b)];
  hiddenTable.push([
    label,
    ta.tp + ta.fn,
    fmt(precision(ta)),
    fmt(recall(ta)),
    fmt(precision(tb)),
    fmt(recall(tb)),
    Object.values(b.leaks).reduce((n, x) => n + x, 0),
  ]);
  list(`${label} invisible variant`, b.failures);
}
console.log(`\n${hiddenTable.toString()}`);

// Our own sets: per type, as written and with an invisible character inside every value (generated here).
const fixtures = (files: string[]) => files.map((f) => path.join(repoRoot, 'tests', 'fixtures', f)).filter((f) => fs.existsSync(f));
const casesOf = (files: string[]) => fixtures(files).flatMap((f) => readFixture(f));
const TUNED = ['pii-zh.jsonl', 'pii-zh-hard.jsonl', 'pii-url-credentials.jsonl', 'pii-holdout.jsonl'];
const HELD_OUT: [string, string][] = [
  ['pii-heldout-cn.jsonl', 'written before the new detectors were tuned'],
  ['pii-heldout-2.jsonl', 'written after tuning, before the detector ran on it'],
];
const variantHead = ['entity', 'gold', 'precision', 'recall', 'exact', 'P invisible', 'R invisible', 'leaks', 'aim met'];
const nameRows: string[][] = [];

function variantTable(title: string, cases: LabelledText[]): void {
  const plain = scoreLabelled(cases);
  const hidden = scoreLabelled(cases.map((c, i) => withInvisible(c, i)));
  const meets = (t: Tally) =>
    (Number.isNaN(recall(t)) || recall(t) >= AIM.recall) && (Number.isNaN(precision(t)) || precision(t) >= AIM.precision);
  const table = new Table({ head: variantHead, style });
  for (const type of Object.keys(plain.perType).sort()) {
    const a = plain.perType[type] ?? emptyTally();
    const b = hidden.perType[type] ?? emptyTally();
    const leaks = (plain.leaks[type] ?? 0) + (hidden.leaks[type] ?? 0);
    const cells = [
      type === 'CARD' ? 'CARD (credit + bank)' : type,
      a.tp + a.fn,
      fmt(precision(a)),
      fmt(recall(a)),
      a.tp ? fmt(a.exact / a.tp) : 'n/a',
      fmt(precision(b)),
      fmt(recall(b)),
      leaks,
    ];
    if (type === 'PERSON') nameRows.push([title, ...cells.slice(1)].map(String));
    else table.push([...cells, mark(meets(a) && meets(b) && leaks === 0)]);
  }
  console.log(`\n${title}: ${cases.length} texts, each also with an invisible character inside every value`);
  console.log(table.toString());
  list('rows not exactly right (as written)', plain.failures);
  list('rows not exactly right (invisible variant)', hidden.failures);
}

variantTable(`Own sets tuned against (${TUNED.join(', ')})`, casesOf(TUNED));
for (const [file, when] of HELD_OUT) variantTable(`Held-out set ${file} (${when}; first-run figures in docs/pii.md)`, casesOf([file]));
variantTable(
  'Generated set (bench/pii-generated.ts: random valid values, spaced/dashed/full-width forms, look-alike negatives)',
  generatedCases(60),
);
const names = new Table({
  head: ['person names, reported separately', 'gold', 'precision', 'recall', 'exact', 'P invisible', 'R invisible', 'leaks'],
  style,
});
for (const r of nameRows) names.push(r);
console.log(
  `\n${names.toString()}\nnames are found from cue words (我叫, 联系人：, 张先生, My name is, Dr.); the presidio synth row above uses names: true.`,
);

// A corpus nobody wrote for this detector: TypeScript's Chinese diagnostic messages (installed with the compiler).
// It holds no personal data, so every span is a false positive; names and the cue-based types are the ones to watch.
const negatives = new Table({ head: ['Chinese text without PII', 'messages', 'characters', 'spans flagged (all false positives)'], style });
for (const locale of ['zh-cn', 'zh-tw']) {
  const file = require.resolve(`typescript/lib/${locale}/diagnosticMessages.generated.json`);
  const messages = Object.values(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>);
  const flagged: Record<string, number> = {};
  for (const m of messages) for (const span of detectPii(m)) flagged[span.type] = (flagged[span.type] ?? 0) + 1;
  negatives.push([
    `TypeScript diagnostics (${locale})`,
    messages.length,
    messages.reduce((n, m) => n + m.length, 0),
    Object.entries(flagged)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none',
  ]);
}
console.log(`\n${negatives.toString()}`);

// Throughput on the synth texts, against one plain regex pass over the same texts in the same run.
const texts = (
  JSON.parse(fs.readFileSync(path.join(piiDir, 'presidio-research_synth_dataset_v2.json'), 'utf8')) as { full_text: string }[]
).map((s) => s.full_text);
const chars = texts.reduce((n, t) => n + t.length, 0);
const baseline = timeIt(() => texts.reduce((n, t) => n + (t.match(/[\w.+-]+@[\w-]+\.[\w.]+|\d[\d -]{6,}\d/g)?.length ?? 0), 0));
const full = timeIt(() => texts.reduce((n, t) => n + detectPii(t).length, 0));
console.log(
  `\nthroughput: detectPii ${fmt(texts.length / (full.ms / 1000), 0)} texts/s (${fmt(chars / full.ms / 1000, 2)} MB/s) on ${texts.length} synth texts; ` +
    `one plain regex pass is ${fmt(full.ms / baseline.ms, 0)}x faster`,
);
console.log(`(${fmt((performance.now() - t0) / 1000, 1)} s)`);
