// A transcript in OpenClaw's shape whose context windows exercise every form an item can take: texts that
// repeat (a user text seen ten turns earlier, an agent reply shared by many turns), turns without a reply,
// failed attempts sent again, and a user text identical to an earlier agent reply.
export function contextTranscript(turns: number, sessionId = 'ctx-1'): string[] {
  const out = [JSON.stringify({ type: 'session', version: 3, id: sessionId, timestamp: '2026-03-01T00:00:00.000Z', cwd: '/tmp' })];
  let parent: string | null = null;
  let t = Date.UTC(2026, 2, 1);
  const push = (message: Record<string, unknown>) => {
    const id = `${sessionId}-e${out.length}`;
    out.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date((t += 5_000)).toISOString(), message }));
    parent = id;
  };
  const reply = (text: string) =>
    push({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', model: 'm', provider: 'p' });
  for (let i = 0; i < turns; i++) {
    const text =
      i % 10 === 3 && i > 10 ? `question ${i - 10} 记录一下 "quoted"\n` : i % 13 === 7 ? 'ok' : `question ${i} 记录一下 "quoted"\n`;
    push({ role: 'user', content: [{ type: 'text', text }] });
    if (i % 17 === 5) {
      push({ role: 'assistant', content: [], stopReason: 'error', provider: 'p', model: 'm', errorMessage: 'overloaded' });
      push({ role: 'user', content: [{ type: 'text', text }] });
    }
    if (i % 11 === 4) continue; // no reply: the next user message starts the next turn
    reply(i % 4 === 0 ? 'Noted.' : i % 9 === 2 ? 'ok' : `answer ${i}: alice@example.com`);
  }
  return out;
}
