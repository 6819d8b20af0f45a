import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines, type SourceLine } from '../../src/core/importers/lines';
import { entryHead, entryHeadOfBytes } from '../../src/core/importers/openclawTranscript';
import { tempWorkspace } from '../helpers/workspace';

async function collect(file: string, opts: Parameters<typeof readLines>[1]): Promise<Array<Omit<SourceLine, 'raw'> & { raw?: string }>> {
  const out = [];
  // A raw line is only valid until the next one is asked for: copy it out at once.
  for await (const l of readLines(file, opts)) out.push({ ...l, raw: l.raw?.toString('hex') });
  return out;
}

const LINES = [
  '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-01T00:00:00.000Z"}',
  '{"type":"message","id":"é2","parentId":"a1","note":"记录一下今天的进度"}\r',
  '',
  `{"id":"b3","type":"message","parentId":"é2","pad":"${'x'.repeat(40)}"}`,
  '{"type":"message","id":"c4","parentId":"b3"',
];

describe('readLines', () => {
  it('gives the same lines, offsets and texts whether a line lies in one read chunk or spans several, and raw bytes on request', async () => {
    const file = path.join(tempWorkspace(), 'lines.jsonl');
    fs.writeFileSync(file, Buffer.concat([Buffer.from(LINES.join('\n')), Buffer.from([0x0a, 0xff, 0xfe, 0x41, 0x0a])]));
    const big = await collect(file, {});
    const small = await collect(file, { chunkBytes: 7 });
    expect(small).toEqual(big);
    expect(big.map((l) => l.text)).toEqual([...LINES.slice(0, 4).map((l) => l.replace(/\r$/, '')), LINES[4], undefined]);
    expect(big[5]!.problem).toBe('invalid_utf8');
    expect(big[4]!.end).toBe(big[5]!.start);
    const raw = await collect(file, { chunkBytes: 7, raw: true });
    expect(raw.map((l) => (l.raw === undefined ? undefined : Buffer.from(l.raw, 'hex').toString('utf8')))).toEqual(
      big.map((l, i) => (i === 5 ? '\ufffd\ufffdA' : l.text)),
    );
    expect(raw.map((l) => [l.start, l.end, l.bytes])).toEqual(big.map((l) => [l.start, l.end, l.bytes]));
    const tooLong = await collect(file, { maxLineBytes: 30, raw: true });
    expect(tooLong.map((l) => l.problem ?? 'ok')).toEqual(['too_long', 'too_long', 'ok', 'too_long', 'too_long', 'ok']);
  });

  it('reads an entry head from bytes as from the decoded text: fast key order, other orders, non-ASCII ids, BOM, broken lines', () => {
    const cases = [...LINES.map((l) => l.replace(/\r$/, '')), `\ufeff${LINES[0]}`, '[1,2]', 'not json'];
    for (const text of cases) expect(entryHeadOfBytes(Buffer.from(text))).toEqual(entryHead(new TextDecoder().decode(Buffer.from(text))));
    expect(entryHeadOfBytes(Buffer.from(LINES[1]!.replace(/\r$/, '')))).toEqual({ type: 'message', id: 'é2', parent: 'a1' });
    expect(entryHeadOfBytes(Buffer.from([0x7b, 0xff, 0x7d]))).toBeUndefined();
  });
});
