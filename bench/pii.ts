// `npm run bench:pii`: precision and recall of the PII detector on public labelled data and our own sets.
// Pass --verbose to list every miss and false positive.
import fs from 'node:fs';
import path from 'node:path';
import Table from 'cli-table3';
import {
  precision,
  recall,
  scoreDetectSecrets,
  scoreFixture,
  scoreGitleaks,
  scorePresidioFile,
  scoreSynth,
  scoreUntargetedFile,
  PRESIDIO_TARGETS,
  type Tally,
} from './pii-eval';
import { fmt, timeIt } from './util';
import { detectPii } from '../src/main/services/pii/index';

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
console.log(`not targeted: ${Object.entries(synth.untargeted).map(([k, v]) => `${k} (${v})`).join(', ')}`);

console.log('\nSecrets');
const ds = scoreDetectSecrets(path.join(piiDir, 'detect-secrets'));
const dsTable = new Table({ head: ['detect-secrets file', 'expected', 'found', 'missed', 'other spans flagged'], style });
for (const f of ds.perFile) dsTable.push([f.file, f.expected, f.found, f.missed.join('\n'), f.extra.join('\n')]);
console.log(dsTable.toString());
const dsRecall = ds.found / ds.expected;
console.log(`detect-secrets recall: ${ds.found}/${ds.expected} = ${fmt(dsRecall)} (aim >= ${AIM.secretsRecall}: ${mark(dsRecall >= AIM.secretsRecall)})`);
const gl = scoreGitleaks(path.join(piiDir, 'gitleaks', 'generic-api-key_cases.jsonl'));
const glRecall = gl.found / gl.secretRows;
console.log(`gitleaks generic-api-key: recall on secret ${gl.found}/${gl.secretRows} = ${fmt(glRecall)} (aim met: ${mark(glRecall >= AIM.secretsRecall)}); false-positive rate on not_secret ${gl.flagged}/${gl.negativeRows} = ${fmt(gl.flagged / gl.negativeRows)}`);
list('gitleaks missed', gl.missedTexts);
list('gitleaks flagged not_secret', gl.flaggedTexts);

for (const [title, file] of [
  ['Chinese test set (tests/fixtures/pii-zh.jsonl)', 'pii-zh.jsonl'],
  ['URL-with-credentials and secrets set (tests/fixtures/pii-url-credentials.jsonl)', 'pii-url-credentials.jsonl'],
  ['Mixed set written after tuning (tests/fixtures/pii-holdout.jsonl)', 'pii-holdout.jsonl'],
] as const) {
  const full = path.join(repoRoot, 'tests', 'fixtures', file);
  if (!fs.existsSync(full)) continue;
  const r = scoreFixture(full);
  console.log(`\n${title}: ${r.rows} texts`);
  const t = new Table({ head, style });
  for (const [type, tally] of Object.entries(r.perType).sort()) t.push(row(type, tally));
  console.log(t.toString());
  list('rows not exactly right', r.failures);
}
// Throughput on the synth texts, against one plain regex pass over the same texts in the same run.
const texts = (JSON.parse(fs.readFileSync(path.join(piiDir, 'presidio-research_synth_dataset_v2.json'), 'utf8')) as { full_text: string }[]).map((s) => s.full_text);
const chars = texts.reduce((n, t) => n + t.length, 0);
const baseline = timeIt(() => texts.reduce((n, t) => n + (t.match(/[\w.+-]+@[\w-]+\.[\w.]+|\d[\d -]{6,}\d/g)?.length ?? 0), 0));
const full = timeIt(() => texts.reduce((n, t) => n + detectPii(t).length, 0));
console.log(
  `\nthroughput: detectPii ${fmt(texts.length / (full.ms / 1000), 0)} texts/s (${fmt(chars / full.ms / 1000, 2)} MB/s) on ${texts.length} synth texts; ` +
    `one plain regex pass is ${fmt(full.ms / baseline.ms, 0)}x faster`,
);
console.log(`(${fmt((performance.now() - t0) / 1000, 1)} s)`);
