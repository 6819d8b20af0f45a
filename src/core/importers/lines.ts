import fs from 'node:fs';
import { AppError } from '../../shared/errors';

/** One line of a JSON Lines file, located by byte offsets so a cursor can resume right after it. */
export interface SourceLine {
  /** 1-based line number in the file. */
  lineNumber: number;
  /** Byte offset of the first byte of the line. */
  start: number;
  /** Byte offset just past the line's newline (or past its last byte for an unterminated tail). */
  end: number;
  /** Decoded text without the newline; undefined when the line could not be decoded (or was asked for raw). */
  text?: string;
  /** With `raw`: the line's bytes without the newline, undecoded; valid only until the next line is asked for. */
  raw?: Buffer;
  /** Why the line could not be decoded. */
  problem?: 'too_long' | 'invalid_utf8';
  /** Length in bytes of the line (without the newline). */
  bytes: number;
  /** True for the last line of the file when it has no newline yet (possibly still being written). */
  unterminated: boolean;
}

export interface ReadLinesOptions {
  start?: number;
  startLine?: number;
  /** Stop at this byte offset (a second pass must not read what was appended after the first). */
  end?: number;
  /** Longer lines are not held in memory: they are reported as too_long and skipped. */
  maxLineBytes?: number;
  chunkBytes?: number;
  /** Called with the number of bytes read so far, for progress bars. */
  onBytes?: (bytesFromStart: number) => void;
  /** Yield each line's bytes (`raw`) instead of decoding them: for a pass that reads only part of each line. */
  raw?: boolean;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

export function decode(buf: Buffer): string | undefined {
  try {
    return decoder.decode(buf);
  } catch {
    return undefined;
  }
}

/** A line's bytes without a trailing CR. */
const withoutCr = (buf: Buffer): Buffer => (buf.length && buf[buf.length - 1] === 0x0d ? buf.subarray(0, buf.length - 1) : buf);

/**
 * Streams a file line by line from a byte offset in bounded memory: a fixed read buffer plus at
 * most one line of maxLineBytes. A longer line is dropped as it streams past and reported once.
 * Invalid UTF-8 is reported per line instead of being replaced silently.
 */
export async function* readLines(file: string, opts: ReadLinesOptions = {}): AsyncGenerator<SourceLine> {
  for await (const lines of readLineBatches(file, opts)) yield* lines;
}

/**
 * readLines's lines a read at a time: the lines that end in each chunk read, in order (raw lines valid until
 * the next batch is asked for). A hot loop over a file's lines takes them so: one step of an async generator
 * per line cost more than the line's own work, and its per-line state machine was optimized again and again.
 */
export async function* readLineBatches(file: string, opts: ReadLinesOptions = {}): AsyncGenerator<SourceLine[]> {
  const chunkSize = opts.chunkBytes ?? 1024 * 1024;
  // O_NONBLOCK: a FIFO put where a file was listed must not hang the open; then only a regular file is read.
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    if (!(await handle.stat()).isFile()) throw new AppError('Invalid', `${file} is not a regular file; it was not read`);
    const chunk = Buffer.allocUnsafe(chunkSize);
    let position = opts.start ?? 0;
    const splitter = new LineSplitter(position, opts.startLine ?? 0, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, opts.raw === true);
    for (;;) {
      const want = opts.end === undefined ? chunkSize : Math.min(chunkSize, opts.end - position);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(chunk, 0, want, position);
      if (bytesRead === 0) break;
      const lines = splitter.split(chunk, bytesRead, position);
      if (lines.length) yield lines;
      position += bytesRead;
      opts.onBytes?.(position);
    }
    const tail = splitter.tail(position);
    if (tail) yield [tail];
  } finally {
    await handle.close();
  }
}

/**
 * Cuts chunks read one after another into lines: a line that ends in its chunk is taken from it uncopied, one
 * that spans chunks is copied piece by piece, one longer than maxLine is dropped as it passes. Apart from the
 * generator that reads, so the per-line loop is a plain function, optimized once.
 */
class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private lineBytes = 0;
  private overflow = false;

  constructor(
    private lineStart: number,
    private lineNumber: number,
    private readonly maxLine: number,
    private readonly raw: boolean,
  ) {}

  /** The lines that end in the chunk's first `length` bytes, read at `position`. */
  split(chunk: Buffer, length: number, position: number): SourceLine[] {
    const lines: SourceLine[] = [];
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl === -1 || nl >= length) {
        this.keep(chunk, from, length);
        return lines;
      }
      if (this.lineBytes === 0 && !this.overflow) {
        // The whole line is in this chunk: decoded (or handed out raw) from it, uncopied, before the next read.
        this.lineBytes = nl - from;
        this.overflow = this.lineBytes > this.maxLine;
        lines.push(this.finish(position + nl + 1, false, chunk.subarray(from, nl)));
      } else {
        this.keep(chunk, from, nl);
        lines.push(this.finish(position + nl + 1, false));
      }
      from = nl + 1;
    }
  }

  /** The last line when the file does not end with a newline. */
  tail(position: number): SourceLine | undefined {
    return this.lineBytes > 0 || this.parts.length > 0 ? this.finish(position, true) : undefined;
  }

  private keep(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.lineBytes += to - from;
    if (this.overflow) return;
    if (this.held + (to - from) > this.maxLine) {
      this.overflow = true;
      this.parts = [];
      this.held = 0;
      return;
    }
    // Copy: the read buffer is reused for the next chunk.
    this.parts.push(Buffer.from(chunk.subarray(from, to)));
    this.held += to - from;
  }

  private finish(end: number, unterminated: boolean, whole?: Buffer): SourceLine {
    this.lineNumber++;
    const { parts, held, lineNumber, lineStart: start, lineBytes: bytes } = this;
    // Each shape written out, in lineContent's key order: a spread of its result per line took V8's generic copy.
    let line: SourceLine;
    if (this.overflow) line = { lineNumber, start, end, problem: 'too_long', bytes, unterminated };
    else {
      const buf = withoutCr(whole ?? (parts.length === 1 ? parts[0]! : Buffer.concat(parts, held)));
      const text = this.raw ? undefined : decode(buf);
      if (this.raw) line = { lineNumber, start, end, raw: buf, bytes, unterminated };
      else if (text === undefined) line = { lineNumber, start, end, problem: 'invalid_utf8', bytes, unterminated };
      else line = { lineNumber, start, end, text, bytes, unterminated };
    }
    this.parts = [];
    this.held = 0;
    this.lineBytes = 0;
    this.overflow = false;
    this.lineStart = end;
    return line;
  }
}

/** Parses a line as a JSON object; the reason names what is wrong when it is not one. */
export function parseJsonObject(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: `malformed JSON (${(e as Error).message.slice(0, 80)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` };
  }
  return { value: value as Record<string, unknown> };
}
