// The integration patch of docs/recorder.md, applied to the real plugin: the recorder's rows for a
// run equal what log tailing (the reflection-logs importer) produces for the same run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { importReflectionLogs } from '../../src/core/importers';
import { repoRoot, tempWorkspace } from '../helpers/workspace';
import {
  MISSING_PLUGIN,
  activatePlugin,
  appendFact,
  countEvents,
  pluginRoot,
  pluginSource,
  startMockLlm,
  until,
  type MockLlm,
  type TestSession,
} from './harness';

const source = pluginSource('main');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ```diff block of docs/recorder.md: the test applies what the guide says, nothing else. */
function documentedPatch(): string {
  const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'recorder.md'), 'utf8');
  const block = /```diff\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/recorder.md has no ```diff block');
  return block[1] ?? '';
}

/** Turns, decisions and writes, keyed by what both sources know. */
function rowsOf(db: DB) {
  return {
    turns: db
      .prepare('SELECT id, session_id, user_message_content AS user, agent_message_content AS reply FROM conversation_turns ORDER BY id')
      .all(),
    decisions: db
      .prepare('SELECT turn_id, session_id, decision, reason, candidate_fact FROM memory_gate_decisions ORDER BY turn_id, created_at')
      .all(),
    writes: db
      .prepare(
        "SELECT turn_id, target_file, status, candidate_fact FROM write_guardian_audit WHERE source = 'plugin' ORDER BY turn_id, created_at",
      )
      .all(),
  };
}

let llm: MockLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

describe.skipIf(!source)('the documented recorder patch on the real plugin', () => {
  if (!source) console.warn(MISSING_PLUGIN('main'));
  // The package as installed: package.json, migrations and a fresh build of dist/recorder, in a
  // folder of its own (another test may be building the repository's dist/recorder meanwhile).
  let pkg = '';
  beforeAll(() => {
    pkg = tempWorkspace('recorder-pkg-');
    fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(pkg, 'package.json'));
    fs.symlinkSync(path.join(repoRoot, 'migrations'), path.join(pkg, 'migrations'), 'dir');
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-recorder.mjs'), path.join(pkg, 'dist', 'recorder')], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
  }, 120_000);

  it("records turn, decision and write with content; the rows equal the log importer's for the same run", async () => {
    const workspace = tempWorkspace('patched-ws-');
    fs.writeFileSync(path.join(workspace, 'USER.md'), '# USER\n');
    const rules: Record<string, { decision: 'NO_WRITE' | 'UPDATE_USER' | 'UPDATE_TOOLS'; fact?: string; delayMs: number }> = {
      'Noted. Let me check your settings.': { decision: 'UPDATE_USER', fact: 'prefers British English', delayMs: 600 },
      'Done: British English from now on.': { decision: 'NO_WRITE', delayMs: 200 },
      'Got it, bluebird is staging.': { decision: 'UPDATE_TOOLS', fact: 'bluebird is the staging box', delayMs: 300 },
    };
    llm = await startMockLlm({
      gate: (reply) => {
        const rule = rules[reply];
        if (!rule) throw new Error(`no gate rule for the reply ${reply}`);
        return {
          delayMs: rule.delayMs,
          answer: { decision: rule.decision, reason: `judged: ${reply}`, ...(rule.fact ? { candidate_fact: rule.fact } : {}) },
        };
      },
      // write_guardian writes USER.md and refuses TOOLS.md
      guardian: (file, current, fact) => (file === 'USER.md' ? appendFact(file, current, fact) : null),
    });
    const root = pluginRoot(source!, { patch: documentedPatch(), modules: { 'reflection-workbench': pkg } });
    const plugin = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: workspace });
    const S1: TestSession = { channelId: 'discord', target: 'channel:100' };
    const S2: TestSession = { channelId: 'telegram', target: 'group:200' };
    plugin.userMessage(S1, 'I always want answers in British English.', 'm-1');
    plugin.assistantMessage(S1, 'Noted. Let me check your settings.');
    plugin.userMessage(S2, 'Remember the staging box is called bluebird.', 't-1');
    await sleep(300);
    plugin.assistantMessage(S1, 'Done: British English from now on.');
    plugin.assistantMessage(S2, 'Got it, bluebird is staging.');
    await until(
      () =>
        countEvents(plugin.logsDir, 'memory_gate decision evaluated') === 3 &&
        countEvents(plugin.logsDir, 'write_guardian refused update') === 2 /* WriteGuardian and MessageHandler lines */ &&
        countEvents(plugin.logsDir, 'write_guardian applied update') === 1,
      20_000,
      'the run',
    );

    const recorded = openWorkspaceDatabase(workspace).db;
    await until(
      () => (recorded.prepare('SELECT count(*) FROM write_guardian_audit').pluck().get() as number) === 2,
      10_000,
      'the recorder to write',
    );
    const tailed = openWorkspaceDatabase(tempWorkspace('tailed-')).db;
    await importReflectionLogs({ db: tailed, workspaceDir: workspace }, { source: root, workspace, recordExternalChanges: false });

    const fromRecorder = rowsOf(recorded);
    expect(fromRecorder.turns).toHaveLength(3);
    expect(fromRecorder.decisions).toHaveLength(3);
    expect(fromRecorder).toEqual(rowsOf(tailed));
    // What only the recorder has: the write's real diff, and the window the gate saw.
    const diff = recorded.prepare("SELECT diff FROM write_guardian_audit WHERE status = 'written'").pluck().get() as string;
    expect(diff).toContain('+- prefers British English');
    expect(recorded.prepare('SELECT count(*) FROM conversation_contexts').pluck().get()).toBeGreaterThan(0);
  });
});
