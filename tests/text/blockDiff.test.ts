// blockDiff (the one-run fast path of diffFile) must print exactly what jsdiff prints, or step aside.
import { describe, expect, it } from 'vitest';
import { blockDiff } from '../../src/core/text/blockDiff';
import { diffFile, jsdiffFile } from '../../src/core/text/diff';

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Few distinct lines, so repeats (the ambiguous alignments) are common; some without a newline, one blank.
const VOCAB = [
  '# USER.md\n',
  '- likes tea\n',
  '- lives in Berlin\n',
  '- 早上喝咖啡\n',
  '\n',
  '- x\n',
  '- likes tea',
  'tail',
  '  indented\n',
];

function randomText(r: () => number, maxLines: number): string {
  const n = Math.floor(r() * maxLines);
  let text = '';
  for (let i = 0; i < n; i++) text += VOCAB[Math.floor(r() * VOCAB.length)]!.replace(/\n?$/, '\n');
  // The last line keeps or loses its newline.
  return r() < 0.3 ? text.replace(/\n$/, '') : text;
}

/** An edit of `text`: one run of lines replaced, inserted or removed, sometimes a second run, sometimes new lines. */
function edit(r: () => number, text: string, i: number): string {
  const lines = text.split(/(?<=\n)/);
  const at = Math.floor(r() * (lines.length + 1));
  const drop = Math.floor(r() * 3);
  const add = Array.from({ length: Math.floor(r() * 3) }, (_, k) =>
    r() < 0.5 ? VOCAB[Math.floor(r() * VOCAB.length)]! : `- fact ${i}.${k}\n`,
  );
  lines.splice(at, drop, ...add);
  if (r() < 0.15) lines.splice(Math.floor(r() * (lines.length + 1)), 0, `- another ${i}\n`);
  return lines.join('');
}

describe('blockDiff', () => {
  it('prints what jsdiff prints for every edit it takes, and takes the usual ones', () => {
    const r = rng(16);
    let taken = 0;
    const total = 6000;
    for (let i = 0; i < total; i++) {
      const before = r() < 0.05 ? null : randomText(r, 14);
      const after = r() < 0.05 ? null : edit(r, before ?? '', i);
      const quick = blockDiff(
        before === null ? '/dev/null' : 'a/USER.md',
        after === null ? '/dev/null' : 'b/USER.md',
        before ?? '',
        after ?? '',
      );
      if (!quick) continue;
      taken++;
      expect(quick, JSON.stringify({ before, after })).toEqual(jsdiffFile('USER.md', before, after));
    }
    expect(taken).toBeGreaterThan(total / 3);
  });

  it('takes an appended fact on a large file, and diffFile answers the same as jsdiff', () => {
    const big = Array.from({ length: 3000 }, (_, i) => `- fact number ${i}\n`).join('');
    const after = big.replace('- fact number 1500\n', '- fact number 1500\n- a new fact\n');
    expect(blockDiff('a/MEMORY.md', 'b/MEMORY.md', big, after)).toEqual(jsdiffFile('MEMORY.md', big, after));
    expect(diffFile('MEMORY.md', big, after)).toEqual(jsdiffFile('MEMORY.md', big, after));
    expect(diffFile('MEMORY.md', big, after).lines).toEqual({ added: 1, removed: 0, modified: 0 });
    // A long run on a long file (the set lookup): 100 lines rewritten, one of them to a line found elsewhere.
    const rewritten = big.split(/(?<=\n)/).map((l, i) => (i >= 1000 && i < 1100 ? `- rewritten ${i}\n` : l));
    const quick = blockDiff('a/MEMORY.md', 'b/MEMORY.md', big, rewritten.join(''));
    expect(quick).toEqual(jsdiffFile('MEMORY.md', big, rewritten.join('')));
    expect(quick?.lines).toEqual({ added: 0, removed: 0, modified: 100 });
    rewritten[1050] = '- fact number 7\n';
    expect(blockDiff('a/MEMORY.md', 'b/MEMORY.md', big, rewritten.join(''))).toBeUndefined();
  });

  it('steps aside for carriage returns, names jsdiff would quote, and lines that could align elsewhere', () => {
    expect(blockDiff('a/USER.md', 'b/USER.md', 'a\r\nb\r\n', 'a\r\nc\r\n')).toBeUndefined();
    expect(blockDiff('a/"x".md', 'b/"x".md', 'a\n', 'b\n')).toBeUndefined();
    expect(blockDiff('a/USER.md', 'b/USER.md', 'x\ny\n', 'x\ny\nx\ny\n')).toBeUndefined();
  });
});
