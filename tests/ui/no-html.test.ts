// Conversation text is untrusted: nothing in the renderer may turn a string into markup.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/workspace';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(tsx?|html)$/.test(e.name) ? [p] : [];
  });
}

describe('renderer never renders HTML from strings', () => {
  it('has no dangerouslySetInnerHTML, innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    const files = sourceFiles(path.join(repoRoot, 'src', 'renderer'));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return /dangerouslySetInnerHTML|\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write/.test(text)
        ? [path.relative(repoRoot, f)]
        : [];
    });
    expect(offenders).toEqual([]);
  });

  it('does not import from the node side (the renderer talks only to the API client)', () => {
    const files = sourceFiles(path.join(repoRoot, 'src', 'renderer'));
    const offenders = files.filter((f) => /from\s+['"][./]*\/(main|core|api|electron|web|cli)\//.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map((f) => path.relative(repoRoot, f))).toEqual([]);
  });
});
