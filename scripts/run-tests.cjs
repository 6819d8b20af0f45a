#!/usr/bin/env node
// `npm test`: typecheck, format check, lint (house rules and import boundaries), build the app (UI tests serve the built renderer), run every vitest file,
// then print one plain summary line that CI reads: `tests: N passed, N failed`.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const outDir = path.join(root, 'test-output');
fs.mkdirSync(outDir, { recursive: true });
const report = path.join(outDir, 'vitest-report.json');
fs.rmSync(report, { force: true });

function run(cmd, args, label) {
  process.stdout.write(`\n== ${label}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  return r.status === 0;
}

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
let failedSteps = 0;
// Node side without DOM types, the renderer without Node types, and the Chromium-driving tests with both.
for (const config of ['tsconfig.node.json', 'tsconfig.web.json', 'tsconfig.page-tests.json']) {
  if (!run(bin('tsc'), ['--noEmit', '-p', config], `typecheck ${config}`)) failedSteps++;
}
if (!run(bin('prettier'), ['--check', '--log-level', 'warn', '.'], 'format (prettier --check)')) failedSteps++;
if (!run(bin('eslint'), ['.'], 'lint')) failedSteps++;
if (!run(bin('electron-vite'), ['build'], 'electron-vite build')) failedSteps++;
const extra = process.argv.slice(2);
run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra], 'vitest');

let passed = 0;
let failed = 0;
let skipped = 0;
if (fs.existsSync(report)) {
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = (r.numPendingTests || 0) + (r.numTodoTests || 0);
  // A test file that fails to load has no tests but must still fail the run.
  failed += (r.testResults || []).filter((f) => f.status === 'failed' && (f.assertionResults || []).length === 0).length;
} else {
  failed += 1;
}
failed += failedSteps;
if (passed === 0 && failed === 0) failed = 1;
const summary = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
fs.writeFileSync(path.join(outDir, 'summary.txt'), `${summary}\n`);
process.stdout.write(`\n${summary}\n`);
process.exit(failed > 0 ? 1 : 0);
