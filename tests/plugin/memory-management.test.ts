// The memory-management branch of the real plugin (codex/reflection-memory-management, 9f49b96):
// after each write it re-renders a managed region from .openclaw-reflection/memory-management-store.json
// and refuses its own proposals when region and store disagree. A rollback in the workbench must make
// the agent forget (free text, region and store) in a way the plugin's drift check accepts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { retryWrite } from '../../src/core/guardian/retry';
import { startLiveCapture, type LiveCapture } from '../../src/core/lifecycle/live';
import { tempWorkspace } from '../helpers/workspace';
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
  type PluginInstance,
  type TestSession,
} from './harness';

const source = pluginSource('mm');
if (!source) console.warn(MISSING_PLUGIN('mm'));
const S1: TestSession = { channelId: 'discord', target: 'channel:100' };
const FACTS: Record<string, string> = {
  'Noted, British English.': 'prefers British English',
  'Noted, mornings.': 'prefers important check-ins in the morning',
};

let llm: MockLlm | undefined;
let capture: LiveCapture | undefined;
afterEach(async () => {
  await capture?.stop();
  await llm?.close();
  capture = undefined;
  llm = undefined;
});

function gateway(plugin: PluginInstance, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const handler = plugin.gatewayMethods.get(method);
    if (!handler) return reject(new Error(`the plugin registered no gateway method ${method}`));
    Promise.resolve(
      handler({ params, respond: (ok, payload, error) => (ok ? resolve(payload as Record<string, unknown>) : reject(error)) }),
    ).catch(reject);
  });
}

interface Store {
  facts: Array<{
    id: string;
    text: string;
    status: string;
    fileName: string;
    provenance: { sessionKey?: string; sourceMessageId?: string };
  }>;
}
const readStore = (ws: string) =>
  JSON.parse(fs.readFileSync(path.join(ws, '.openclaw-reflection', 'memory-management-store.json'), 'utf8')) as Store;

/** Two facts written by the plugin into USER.md, each re-rendered into the managed region, captured live. */
async function twoManagedFacts(): Promise<{ ws: string; plugin: PluginInstance; db: DB }> {
  const ws = tempWorkspace('mm-ws-');
  fs.writeFileSync(path.join(ws, 'USER.md'), '# USER\n');
  llm = await startMockLlm({
    gate: (reply) => ({ delayMs: 50, answer: { decision: 'UPDATE_USER', reason: `judged: ${reply}`, candidate_fact: FACTS[reply] } }),
    guardian: appendFact,
  });
  const root = pluginRoot(source!);
  const db = openWorkspaceDatabase(ws).db;
  capture = startLiveCapture({ db, workspaceDir: ws }, { pluginRoot: root, pollIntervalMs: 50 });
  const plugin = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: ws });
  let n = 0;
  for (const reply of Object.keys(FACTS)) {
    plugin.userMessage(S1, `please remember (${reply})`, `m-${++n}`);
    plugin.assistantMessage(S1, reply);
    // The plugin writes the store, then renders the file: wait for both.
    await until(() => readStore0(ws).length === n && regionLines(ws) === n, 10_000, `fact ${n} in the store and the region`);
  }
  await until(
    () =>
      (db
        .prepare("SELECT count(*) FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written' AND diff IS NOT NULL")
        .pluck()
        .get() as number) === 2,
    10_000,
    'both writes with their diffs',
  );
  expect(countEvents(plugin.logsDir, 'write_guardian applied update')).toBe(2);
  return { ws, plugin, db };
}
function regionLines(ws: string): number {
  const m = /<!-- reflection:managed:start -->\n([\s\S]*?)<!-- reflection:managed:end -->/.exec(
    fs.readFileSync(path.join(ws, 'USER.md'), 'utf8'),
  );
  return m ? (m[1] ?? '').split('\n').filter(Boolean).length : 0;
}
function readStore0(ws: string) {
  try {
    return readStore(ws).facts;
  } catch {
    return [];
  }
}

describe.skipIf(!source)('the memory-management branch of the real plugin', () => {
  it("imports the store's facts with their provenance, joined to the write and turn; the re-render is no anonymous external write", async () => {
    const { ws, db } = await twoManagedFacts();
    await capture!.sync();
    const facts = db
      .prepare(
        `SELECT f.text, f.status, f.session_key AS sessionKey, f.source_message_id AS messageId, a.candidate_fact AS auditFact, t.agent_message_content AS reply
      FROM managed_facts f LEFT JOIN write_guardian_audit a ON a.id = f.audit_id LEFT JOIN conversation_turns t ON t.id = f.turn_id ORDER BY f.created_at`,
      )
      .all();
    expect(facts).toEqual([
      {
        text: 'prefers British English',
        status: 'active',
        sessionKey: 'channel:discord:channel:100',
        messageId: 'm-1',
        auditFact: 'prefers British English',
        reply: 'Noted, British English.',
      },
      {
        text: 'prefers important check-ins in the morning',
        status: 'active',
        sessionKey: 'channel:discord:channel:100',
        messageId: 'm-2',
        auditFact: 'prefers important check-ins in the morning',
        reply: 'Noted, mornings.',
      },
    ]);
    expect(db.prepare("SELECT count(*) FROM managed_fact_events WHERE type = 'established'").pluck().get()).toBe(2);
    // Every change of USER.md is the plugin's write or its re-render: none is left unexplained.
    const unexplained = db
      .prepare(
        "SELECT count(*) FROM write_guardian_audit WHERE source = 'external' AND json_extract(coalesce(metadata, '{}'), '$.origin') IS NULL AND before_snapshot_id IS NOT NULL",
      )
      .pluck()
      .get();
    expect(unexplained).toBe(0);
    void ws;
  });

  it('a rollback makes the agent forget the fact in the free text, the managed region and the store; the plugin accepts the result', async () => {
    const { ws, plugin, db } = await twoManagedFacts();
    const before = fs.readFileSync(path.join(ws, 'USER.md'), 'utf8');
    expect(before.match(/prefers British English/g)).toHaveLength(2); // free text and managed region
    const audit = db
      .prepare("SELECT id FROM write_guardian_audit WHERE source = 'plugin' AND candidate_fact = 'prefers British English'")
      .pluck()
      .get() as string;

    const preview = await rollbackWrite({ db, workspaceDir: ws }, { auditId: audit, dryRun: true });
    expect(preview.managed).toMatchObject({ action: 'deleted', text: 'prefers British English' });
    await rollbackWrite({ db, workspaceDir: ws }, { auditId: audit, reason: 'wrong' });

    const after = fs.readFileSync(path.join(ws, 'USER.md'), 'utf8');
    expect(after).not.toContain('British English');
    expect(after).toContain(
      '<!-- reflection:managed:start -->\n- prefers important check-ins in the morning\n<!-- reflection:managed:end -->',
    );
    const facts = readStore(ws).facts;
    expect(facts.map((f) => [f.text, f.status])).toEqual([
      ['prefers British English', 'deleted'],
      ['prefers important check-ins in the morning', 'active'],
    ]);
    // The plugin's own view: no drift, and it accepts a proposal on that file again.
    const files = (await gateway(plugin, 'reflection.files')).files as Array<{ fileName: string; health: string }>;
    expect(files.find((f) => f.fileName === 'USER.md')?.health).toBe('healthy');
    const kept = facts.find((f) => f.status === 'active')!;
    await expect(gateway(plugin, 'reflection.propose.delete', { factId: kept.id })).resolves.toMatchObject({
      proposal: { factId: kept.id, status: 'pending' },
    });

    // Undoing the rollback brings the fact back, in the region and the store, still without drift.
    const rb = db.prepare("SELECT id FROM write_guardian_audit WHERE source = 'rollback'").pluck().get() as string;
    await gateway(plugin, 'reflection.discard', { proposalId: readPending(ws) }); // a pending proposal on the fact would block it
    await rollbackWrite({ db, workspaceDir: ws }, { auditId: rb });
    expect(readStore(ws).facts.find((f) => f.text === 'prefers British English')?.status).toBe('active');
    const files2 = (await gateway(plugin, 'reflection.files')).files as Array<{ fileName: string; health: string }>;
    expect(files2.find((f) => f.fileName === 'USER.md')?.health).not.toBe('drifted');
  });

  it('refuses with the reason when the region already drifted, and changes neither file nor store', async () => {
    const { ws, db } = await twoManagedFacts();
    const file = path.join(ws, 'USER.md');
    const drifted = fs
      .readFileSync(file, 'utf8')
      .replace('- prefers important check-ins in the morning\n', '- hand-edited inside the region\n');
    fs.writeFileSync(file, drifted);
    const storeBefore = fs.readFileSync(path.join(ws, '.openclaw-reflection', 'memory-management-store.json'), 'utf8');
    await capture!.sync();
    const audit = db
      .prepare("SELECT id FROM write_guardian_audit WHERE source = 'plugin' AND candidate_fact = 'prefers British English'")
      .pluck()
      .get() as string;
    await expect(rollbackWrite({ db, workspaceDir: ws }, { auditId: audit })).rejects.toThrow(/drift/);
    expect(fs.readFileSync(file, 'utf8')).toBe(drifted);
    expect(fs.readFileSync(path.join(ws, '.openclaw-reflection', 'memory-management-store.json'), 'utf8')).toBe(storeBefore);
  });

  it('a retry adds the corrected fact to the free text, the region and the store together', async () => {
    const { ws, plugin, db } = await twoManagedFacts();
    const audit = db
      .prepare("SELECT id FROM write_guardian_audit WHERE source = 'plugin' AND candidate_fact = 'prefers British English'")
      .pluck()
      .get() as string;
    await retryWrite({ db, workspaceDir: ws }, { auditId: audit, fact: 'prefers British spelling in code comments' });
    const content = fs.readFileSync(path.join(ws, 'USER.md'), 'utf8');
    expect(content.match(/prefers British spelling in code comments/g)).toHaveLength(2);
    const added = readStore(ws).facts.find((f) => f.text === 'prefers British spelling in code comments');
    expect(added).toMatchObject({ status: 'active', fileName: 'USER.md', provenance: { sessionKey: 'channel:discord:channel:100' } });
    const files = (await gateway(plugin, 'reflection.files')).files as Array<{ fileName: string; health: string }>;
    expect(files.find((f) => f.fileName === 'USER.md')?.health).toBe('healthy');
  });
});

function readPending(ws: string): string {
  const store = JSON.parse(fs.readFileSync(path.join(ws, '.openclaw-reflection', 'memory-management-store.json'), 'utf8')) as {
    proposals: Array<{ id: string; status: string }>;
  };
  return store.proposals.find((p) => p.status === 'pending')?.id ?? '';
}
