import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOpenClaw, importReflectionLogs, stripUserEnvelope } from '../../src/core/importers';
import { count, dataCounts, lines, newContext, openclawDir, pluginRoot, pluginWorkspace, writeFile } from './helpers';

const synthetic = path.join(openclawDir, 'synthetic-state');
const desktop = path.join(openclawDir, 'real-desktop-session-8555a0a4.excerpt.jsonl');
const probe = path.join(openclawDir, 'real-probe-capture-0c751d66.excerpt.jsonl');
const glm = path.join(openclawDir, 'real-conversation-info-glm.excerpt.jsonl');

type Row = Record<string, unknown> & {
  user_metadata: string;
  agent_metadata: string;
  user_message_content: string;
  agent_message_content: string;
};
const turnsOf = (db: ReturnType<typeof newContext>['db'], session: string) =>
  (db.prepare('SELECT * FROM conversation_turns WHERE session_id = ? ORDER BY turn_number').all(session) as Row[]).map((t) => ({
    ...t,
    user: JSON.parse(t.user_metadata) as Record<string, any>,
    agent: JSON.parse(t.agent_metadata) as Record<string, any>,
  }));

describe('import openclaw', () => {
  it('imports the synthetic state dir: sessions.json, the topic file, envelopes, tool calls, failed attempts, mirror replies and compactions', async () => {
    const ctx = newContext();
    const report = await importOpenClaw(ctx, { source: synthetic });
    expect(report.skippedCount).toBe(0);
    expect(report.files.map((f) => path.basename(f.path))).toEqual([
      '3f9c2b1e-5d4a-4c8e-9b2f-1a2b3c4d5e6f.jsonl',
      '7d1e0a55-2b8c-4f3e-a1d2-9c8b7a6f5e4d-topic-42.jsonl',
    ]);
    expect(report.ignored).toMatchObject({ 'delivery-mirror replies': 1, 'failed attempts': 1, 'compactions marked': 1 });

    const sessions = ctx.db.prepare('SELECT id, channel_id, account_id, metadata FROM sessions ORDER BY id').all() as Array<
      Record<string, string>
    >;
    expect(sessions.map((s) => s.id)).toEqual(['channel:telegram:direct:7192195698', 'channel:telegram:group:-1001234567890:topic:42']);
    expect(JSON.parse(sessions[0]!.metadata!).openclaw).toMatchObject({
      sessionKey: 'agent:main:telegram:direct:7192195698',
      displayName: 'Ominono',
      name: 'Home server ops',
    });

    const dm = turnsOf(ctx.db, 'channel:telegram:direct:7192195698');
    expect(dm.map((t) => [t.user_message_content, t.agent_message_content])).toEqual([
      [
        'Can you check whether the backup job ran last night? Keep it short, I prefer brief replies.',
        'Checking the backup log.\n\nYes — finished OK at 03:12 (41.2 GB).',
      ],
      ['Remember: always answer me in English, even if I write German. <media:image>', 'Noted — English from now on.'],
      ["what's the disk usage?", '/ is at 63% (1.2 TB free).'],
    ]);
    // The untrusted-metadata envelope is gone from the text and kept as metadata.
    expect(dm[0]!.user.envelope.conversationInfo).toMatchObject({ message_id: '1489', sender: 'Ominono' });
    expect(dm[0]).toMatchObject({ user_message_id: '1489', user_from: 'Ominono (7192195698)' });
    // Tool calls and results are metadata of the turn, with model and summed usage.
    expect(dm[0]!.agent.toolCalls).toEqual([
      { id: 'toolu_01SYNTH0000000000000001', name: 'exec', arguments: { command: 'tail -n 5 /var/log/backup.log' } },
    ]);
    expect(dm[0]!.agent.toolResults[0]).toMatchObject({
      toolName: 'exec',
      isError: false,
      text: expect.stringContaining('backup finished OK'),
    });
    expect(dm[0]!.agent).toMatchObject({ model: 'claude-sonnet-4-6', provider: 'anthropic', usage: { input: 8430, output: 85 } });
    // The failed attempt (content [], stopReason error) is metadata of the turn, not a turn.
    expect(dm[1]!.user.failedAttempts).toEqual([expect.objectContaining({ entryId: 'a0000010', error: '529 overloaded_error' })]);
    expect(dm[1]!.user.attachments).toEqual([{ type: 'image', mimeType: 'image/png' }]);
    // The delivery-mirror digest is not a turn; the compaction is marked on the turn after it.
    expect(dm.some((t) => t.agent_message_content.includes('Daily digest'))).toBe(false);
    expect(dm[2]!.user.before).toEqual([expect.objectContaining({ kind: 'compaction', entryId: 'a0000013', tokensBefore: 151233 })]);

    const topic = turnsOf(ctx.db, 'channel:telegram:group:-1001234567890:topic:42');
    expect(topic.map((t) => [t.user_message_content, t.agent_message_content])).toEqual([['@clawbot any alerts overnight?', 'NO_REPLY']]);
    expect(topic[0]!.user.envelope.conversationInfo).toMatchObject({ group_subject: 'Ops', topic_id: '42' });

    const before = dataCounts(ctx.db);
    const again = await importOpenClaw(ctx, { source: synthetic });
    expect(again.status).toBe('nothing_new');
    expect(dataCounts(ctx.db)).toEqual(before);
  });

  it('keeps the re-sent user text after failed attempts as one turn and skips the gateway-injected reply (real desktop excerpt)', async () => {
    const ctx = newContext();
    const report = await importOpenClaw(ctx, { source: desktop });
    expect(report.skippedCount).toBe(0);
    expect(report.ignored).toMatchObject({ 'gateway-injected replies': 1, 'failed attempts': 4 });
    const [turn, ...rest] = turnsOf(ctx.db, 'openclaw:8555a0a4-0b79-459d-939c-e17cdbbf4fe2');
    if (!turn) throw new Error('no turn');
    expect(rest).toHaveLength(0);
    expect(turn.user_message_content).toBe('はくあ');
    expect(turn.user).toMatchObject({ entryIds: ['6f2bd1b4', 'bdd64df5'], resentAfterFailure: 1, sentAt: 'Sun 2026-03-08 22:03 GMT+9' });
    expect(turn.user.failedAttempts.map((f: { error: string }) => f.error)).toEqual([
      'fetch failed',
      'fetch failed',
      'fetch failed',
      'fetch failed',
    ]);
    expect(turn.user.envelope.sender).toMatchObject({ id: 'gateway-client', name: 'openclaw-tui' });
    expect(turn.agent_message_content.startsWith('や。はくあ、いい名前だね。')).toBe(true);
    expect(turn.agent.toolCalls.map((c: { name: string }) => c.name)).toEqual(['read', 'read', 'read', 'read', 'read']);
    expect(turn.agent.toolResults).toHaveLength(5);
    expect(turn.agent.model).toBe('gpt-5.4');
    expect(count(ctx.db, "conversation_turns WHERE agent_message_content LIKE '%Agent failed before reply%'")).toBe(0);
  });

  it('follows the active branch across parentId gaps (real probe excerpt) and strips both envelopes (GLM excerpt)', async () => {
    const ctx = newContext();
    await importOpenClaw(ctx, { source: probe });
    const [turn] = turnsOf(ctx.db, 'openclaw:0c751d66-8f74-429d-a604-b29855d36c41');
    if (!turn) throw new Error('no turn');
    expect(turn).toMatchObject({ user_message_content: 'List the files in /work', agent_message_content: 'done' });
    expect(turn.agent.toolCalls.map((c: { name: string }) => c.name)).toEqual(['exec', 'read']);
    expect(turn.agent.toolResults.map((r: { text: string }) => r.text)).toEqual([
      'README.md\na.txt',
      '# Demo Project\nThis is the README for the probe test.\n',
    ]);

    await importOpenClaw(ctx, { source: glm });
    const [g] = turnsOf(ctx.db, 'openclaw:real-conversation-info-glm.excerpt');
    if (!g) throw new Error('no turn');
    expect(g.user_message_content.startsWith('https://feeds-drcn.cloud.huawei.com.cn/')).toBe(true);
    expect(g.user_message_content.endsWith(' 收藏这个')).toBe(true);
    expect(Object.keys(g.user.envelope)).toEqual(['conversationInfo', 'sender']);
    expect(g.agent.toolCalls[0]!.name).toBe('call_device_tool');
    expect(g.agent_message_content).toMatch(/^收藏链接时出现错误/);
  });

  it('lands on the same session as the plugin logs through the canonicalization mapping, in either order', async () => {
    const transcript = lines(path.join(synthetic, 'agents', 'main', 'sessions', '3f9c2b1e-5d4a-4c8e-9b2f-1a2b3c4d5e6f.jsonl'))
      .slice(0, 8)
      .join('\n');
    for (const order of ['logs-first', 'openclaw-first'] as const) {
      const ctx = newContext();
      const state = path.join(ctx.workspaceDir, 'openclaw-state');
      const dir = path.join(state, 'agents', 'main', 'sessions');
      writeFile(
        path.join(dir, 'sessions.json'),
        JSON.stringify({ 'agent:main:discord:channel:1478342210': { sessionId: 'd1', channel: 'discord', updatedAt: 1773133600000 } }),
      );
      writeFile(path.join(dir, 'd1.jsonl'), `${transcript}\n`);
      if (order === 'logs-first') await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
      await importOpenClaw(ctx, { source: state });
      if (order === 'openclaw-first') await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
      expect(ctx.db.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['channel:discord:channel:1478342210']);
      expect(count(ctx.db, "conversation_turns WHERE session_id = 'channel:discord:channel:1478342210'")).toBe(7);
    }
  });

  it('keeps one turn when the plugin logs and the transcript hold the same exchange, in either order', async () => {
    const transcript = [
      JSON.stringify({ type: 'session', version: 3, id: 'd2', timestamp: '2026-03-10T09:05:00.000Z', cwd: '/' }),
      JSON.stringify({
        type: 'message',
        id: '0000000a',
        parentId: null,
        timestamp: '2026-03-10T09:05:12.300Z',
        message: { role: 'user', content: 'Remember that I prefer short replies, no long intros.' },
      }),
      JSON.stringify({
        type: 'message',
        id: '0000000b',
        parentId: '0000000a',
        timestamp: '2026-03-10T09:05:15.100Z',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: "Got it — I'll keep replies short and skip the intros." }],
          provider: 'openrouter',
          model: 'x-ai/grok-4.1-fast',
          stopReason: 'stop',
        },
      }),
    ].join('\n');
    for (const order of ['logs-first', 'openclaw-first'] as const) {
      const ctx = newContext();
      const state = path.join(ctx.workspaceDir, 'openclaw-state');
      const dir = path.join(state, 'agents', 'main', 'sessions');
      writeFile(
        path.join(dir, 'sessions.json'),
        JSON.stringify({ 'agent:main:discord:channel:1478342210': { sessionId: 'd2', channel: 'discord' } }),
      );
      writeFile(path.join(dir, 'd2.jsonl'), `${transcript}\n`);
      const first =
        order === 'logs-first'
          ? await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace })
          : await importOpenClaw(ctx, { source: state });
      const second =
        order === 'logs-first'
          ? await importOpenClaw(ctx, { source: state })
          : await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
      expect(count(ctx.db, 'conversation_turns'), order).toBe(6);
      expect({ ...first.ignored, ...second.ignored }, order).toMatchObject(
        order === 'logs-first'
          ? { 'turns already imported from the plugin logs': 1 }
          : { 'turns already imported from OpenClaw transcripts': 1 },
      );
      // The decision about that exchange sits on the one turn that holds it.
      const turn = ctx.db
        .prepare("SELECT id FROM conversation_turns WHERE user_message_content LIKE 'Remember that I prefer%'")
        .pluck()
        .all();
      expect(turn).toHaveLength(1);
      expect(ctx.db.prepare('SELECT decision FROM memory_gate_decisions WHERE turn_id = ?').pluck().all(turn[0])).toEqual(['UPDATE_USER']);
    }
  });

  it('reads a growing transcript incrementally: an open turn waits for its reply, then only the new rows are added', async () => {
    const ctx = newContext();
    const all = lines(path.join(synthetic, 'agents', 'main', 'sessions', '3f9c2b1e-5d4a-4c8e-9b2f-1a2b3c4d5e6f.jsonl'));
    const file = path.join(ctx.workspaceDir, 'sessions', 's1.jsonl');
    // Up to the tool result: the first turn is still waiting for the assistant's final reply.
    writeFile(file, `${all.slice(0, 6).join('\n')}\n`);
    const first = await importOpenClaw(ctx, { source: file });
    expect(first.inserted.conversation_turns).toBeUndefined();
    expect(first.notes.join(' ')).toMatch(/no reply yet/);
    fs.appendFileSync(file, `${all.slice(6, 12).join('\n')}\n`);
    const second = await importOpenClaw(ctx, { source: file });
    expect(second.inserted.conversation_turns).toBe(2);
    expect(second.files[0]!.fromOffset).toBeGreaterThan(0);
    fs.appendFileSync(file, `${all.slice(12).join('\n')}\n`);
    const third = await importOpenClaw(ctx, { source: file });
    expect(third.inserted.conversation_turns).toBe(1);

    const whole = newContext();
    writeFile(path.join(whole.workspaceDir, 'sessions', 's1.jsonl'), `${all.join('\n')}\n`);
    await importOpenClaw(whole, { source: path.join(whole.workspaceDir, 'sessions', 's1.jsonl') });
    const shape = (db: typeof ctx.db) =>
      db
        .prepare(
          'SELECT id, user_message_content, agent_message_content, user_metadata, agent_metadata FROM conversation_turns ORDER BY turn_number',
        )
        .all();
    expect(shape(ctx.db)).toEqual(shape(whole.db));
  });

  it('imports only the active branch, and reads the file again when a later run continues on another branch', async () => {
    const msg = (id: string, parentId: string | null, role: string, text: string, sec: number) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId,
        timestamp: `2026-04-07T06:00:${String(sec).padStart(2, '0')}.000Z`,
        message:
          role === 'user'
            ? { role, content: text }
            : { role, content: [{ type: 'text', text }], provider: 'anthropic', model: 'm', stopReason: 'stop' },
      });
    const head = [
      JSON.stringify({ type: 'session', version: 3, id: 'tree', timestamp: '2026-04-07T06:00:00.000Z', cwd: '/' }),
      msg('00000001', null, 'user', 'first question', 1),
      msg('00000002', '00000001', 'assistant', 'first answer', 2),
      msg('00000003', '00000002', 'user', 'abandoned question', 3),
      msg('00000004', '00000003', 'assistant', 'abandoned answer', 4),
    ];
    const edit = [msg('00000005', '00000002', 'user', 'edited question', 5), msg('00000006', '00000005', 'assistant', 'edited answer', 6)];

    const whole = newContext();
    const file = writeFile(path.join(whole.workspaceDir, 's', 'tree.jsonl'), `${[...head, ...edit].join('\n')}\n`);
    const r = await importOpenClaw(whole, { source: file });
    expect(r.ignored['entries on abandoned branches']).toBe(2);
    expect(whole.db.prepare('SELECT user_message_content FROM conversation_turns ORDER BY turn_number').pluck().all()).toEqual([
      'first question',
      'edited question',
    ]);

    const ctx = newContext();
    const grown = writeFile(path.join(ctx.workspaceDir, 's', 'tree.jsonl'), `${head.join('\n')}\n`);
    await importOpenClaw(ctx, { source: grown });
    fs.appendFileSync(grown, `${edit.join('\n')}\n`);
    const second = await importOpenClaw(ctx, { source: grown });
    expect(second.notes.join(' ')).toMatch(/another branch/);
    expect(second.inserted.conversation_turns).toBe(1);
    // What was imported before the edit stays (it was real at the time); the edit is added once.
    expect(ctx.db.prepare('SELECT user_message_content FROM conversation_turns ORDER BY turn_number').pluck().all()).toEqual([
      'first question',
      'abandoned question',
      'edited question',
    ]);
  });

  it('reads .reset. and .deleted. archives as transcripts of their session, without duplicating what the live file holds', async () => {
    const ctx = newContext();
    const dir = path.join(ctx.workspaceDir, 'state', 'agents', 'main', 'sessions');
    const src = path.join(synthetic, 'agents', 'main', 'sessions');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(src, 'sessions.json'), path.join(dir, 'sessions.json'));
    const live = lines(path.join(src, '3f9c2b1e-5d4a-4c8e-9b2f-1a2b3c4d5e6f.jsonl'));
    writeFile(
      path.join(dir, '3f9c2b1e-5d4a-4c8e-9b2f-1a2b3c4d5e6f.jsonl.reset.2026-04-07T06-10-00.000Z'),
      `${live.slice(0, 8).join('\n')}\n`,
    );
    writeFile(path.join(dir, '3f9c2b1e-5d4a-4c8e-9b2f-1a2b3c4d5e6f.jsonl'), `${live.join('\n')}\n`);
    writeFile(path.join(dir, 'old.jsonl.deleted.2026-04-01T00-00-00.000Z'), `${lines(probe).join('\n')}\n`);
    const report = await importOpenClaw(ctx, { source: path.join(ctx.workspaceDir, 'state') });
    expect(report.files).toHaveLength(3);
    expect(count(ctx.db, "conversation_turns WHERE session_id = 'channel:telegram:direct:7192195698'")).toBe(3);
    expect(count(ctx.db, "conversation_turns WHERE session_id = 'openclaw:0c751d66-8f74-429d-a604-b29855d36c41'")).toBe(1);
  });

  it('stops between lines when cancelled, and the next run continues where it stopped', async () => {
    const ctx = newContext();
    const controller = new AbortController();
    controller.abort();
    const stopped = await importOpenClaw({ ...ctx, signal: controller.signal }, { source: synthetic });
    expect(stopped.notes.join(' ')).toMatch(/stopped before the end/);
    expect(count(ctx.db, 'conversation_turns')).toBe(0);
    const resumed = await importOpenClaw(ctx, { source: synthetic });
    expect(resumed.inserted.conversation_turns).toBe(4);
  });

  it('strips envelopes and the timestamp prefix but leaves ordinary text alone', () => {
    expect(stripUserEnvelope('hello [Sun 2026-03-08 22:03 GMT+9] world')).toEqual({
      text: 'hello [Sun 2026-03-08 22:03 GMT+9] world',
      blocks: {},
    });
    const env = stripUserEnvelope('Sender (untrusted metadata):\n```json\n{"id": 7}\n```\n\n[Mon 2026-03-09 08:00 GMT+2] hi');
    expect(env).toEqual({ text: 'hi', blocks: { sender: { id: 7 } }, sentAt: 'Mon 2026-03-09 08:00 GMT+2' });
  });
});
