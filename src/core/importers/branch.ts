// The active branch of an OpenClaw entry tree, found in bounded memory: a million entries take a
// few typed arrays, not a million-key Map. Almost every entry's parent is the entry just before it;
// only the others keep their parent id, and an id index is built only if one of them is walked.

/** Line numbers (relative to where the read started) that are on the active branch. */
export interface Branch {
  has(lineNumber: number): boolean;
}

const HEX8 = /^[0-9a-f]{8}$/;
const ROOT = 0;
const PREVIOUS = 1;
const OTHER = 2;

export class EntryTable {
  private n = 0;
  private lines = new Uint32Array(1024);
  private kinds = new Uint8Array(1024);
  private hexIds = new Uint32Array(1024);
  private readonly textIds = new Map<number, string>();
  private readonly otherParents = new Map<number, string>();
  private previousId: string | null = null;
  private index?: { hex: Map<number, number>; text: Map<string, number> };

  constructor(private readonly startLine: number) {}

  get size(): number {
    return this.n;
  }

  add(id: string, parentId: string | null, lineNumber: number): void {
    if (this.n === this.lines.length) this.grow();
    const i = this.n++;
    this.lines[i] = lineNumber - this.startLine;
    if (HEX8.test(id)) this.hexIds[i] = parseInt(id, 16);
    else this.textIds.set(i, id);
    if (parentId === null) this.kinds[i] = ROOT;
    else if (parentId === this.previousId) this.kinds[i] = PREVIOUS;
    else {
      this.kinds[i] = OTHER;
      this.otherParents.set(i, parentId);
    }
    this.previousId = id;
    this.index = undefined;
  }

  private grow(): void {
    const size = this.lines.length * 2;
    const copy = <T extends Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.lines = copy(this.lines, (k) => new Uint32Array(k));
    this.kinds = copy(this.kinds, (k) => new Uint8Array(k));
    this.hexIds = copy(this.hexIds, (k) => new Uint32Array(k));
  }

  private find(id: string): number | undefined {
    if (!this.index) {
      const hex = new Map<number, number>();
      const text = new Map<string, number>();
      for (let i = 0; i < this.n; i++) {
        const t = this.textIds.get(i);
        if (t === undefined)
          hex.set(this.hexIds[i]!, i); // one hex id per entry below n
        else text.set(t, i);
      }
      this.index = { hex, text };
    }
    return HEX8.test(id) ? this.index.hex.get(parseInt(id, 16)) : this.index.text.get(id);
  }

  /**
   * Walks from the last entry to the root. A parent missing from the file continues with the entry
   * just before (gaps in excerpts or lost lines). In an incremental read, reaching the previous tip
   * ends the walk; leaving the new lines anywhere else means the conversation branched off earlier
   * and the file must be read again from the start ('rescan').
   */
  activeBranch(tip: string | null): Branch | 'rescan' {
    // lines holds the n entries' line numbers in ascending order, so the last is the largest
    const maxLine = this.n ? this.lines[this.n - 1]! : 0;
    const on = new Uint8Array(maxLine + 1);
    let cur = this.n - 1;
    while (cur >= 0 && !on[this.lines[cur]!]) {
      on[this.lines[cur]!] = 1;
      const kind = this.kinds[cur];
      if (kind === ROOT) break;
      if (kind === PREVIOUS) {
        cur -= 1;
        continue;
      }
      const parent = this.otherParents.get(cur)!;
      const p = this.find(parent);
      if (p !== undefined && p < cur) cur = p;
      else if (tip !== null && parent === tip) break;
      else if (tip !== null && cur === 0) return 'rescan';
      else cur -= 1;
    }
    const start = this.startLine;
    return { has: (lineNumber: number) => on[lineNumber - start] === 1 };
  }
}
