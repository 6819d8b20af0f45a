// Run as a child process: writes N turns (with context and a decision each) into one workspace,
// half into a session shared with the other writer (turn numbers chosen by the recorder).
// It prints "ready" once set up and waits for "go" on stdin, so the parent can start both writers
// at the same moment: otherwise one process may finish before the other has even loaded.
import { openRecorder } from '../../../src/recorder';

function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    let input = '';
    const onData = (d: Buffer) => {
      input += d.toString();
      if (!input.includes('go')) return;
      process.stdin.off('data', onData);
      process.stdin.pause();
      resolve();
    };
    process.stdin.on('data', onData);
  });
}

async function main() {
  const [workspaceDir, name, countText] = process.argv.slice(2);
  if (!workspaceDir) throw new Error('usage: concurrentWriter <workspace dir> <name> <count>');
  const count = Number(countText);
  const rec = openRecorder({ workspaceDir });
  let busy = 0;
  await rec.upsertSession({ id: 'shared', channelId: 'test', createdAt: 1, lastActivityAt: 1 });
  await rec.upsertSession({ id: `own-${name}`, channelId: 'test', createdAt: 1, lastActivityAt: 1 });
  process.stdout.write('ready\n');
  await waitForGo();
  for (let i = 0; i < count; i++) {
    try {
      const sessionId = i % 2 ? 'shared' : `own-${name}`;
      const { id } = await rec.insertTurn({
        sessionId,
        userMessage: { content: `${name} question ${i}` },
        agentReply: { content: `${name} answer ${i}` },
        createdAt: 1000 + i,
      });
      await rec.insertContextBatch(id, [
        { role: 'agent', message: 'earlier', timestamp: 999 + i },
        { role: 'user', message: `${name} question ${i}`, timestamp: 1000 + i },
      ]);
      await rec.insertDecision({
        turnId: id,
        sessionId,
        decision: 'NO_WRITE',
        reason: `${name} ${i}`,
        llmCall: { model: 'm', latencyMs: 5 },
        createdAt: 1001 + i,
      });
    } catch (e) {
      if (/busy|locked/i.test(String((e as Error).message))) busy++;
      throw e;
    }
  }
  rec.close();
  process.stdout.write(JSON.stringify({ name, busy }));
}

main().catch((e) => {
  process.stderr.write(String((e as Error).stack ?? e));
  process.exit(1);
});
