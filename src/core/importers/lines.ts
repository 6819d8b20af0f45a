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

/** A line's text (its bytes when asked for raw), without a trailing CR; the problem when it is not UTF-8. */
function lineContent(buf: Buffer, raw: boolean | undefined): Pick<SourceLine, 'text' | 'raw' | 'problem'> {
  const line = buf.length && buf[buf.length - 1] === 0x0d ? buf.subarray(0, buf.length - 1) : buf;
  if (raw) return { raw: line };
  const text = decode(line);
  return text === undefined ? { problem: 'invalid_utf8' } : { text };
}

/**
 * Streams a file line by line from a byte offset in bounded memory: a fixed read buffer plus at
 * most one line of maxLineBytes. A longer line is dropped as it streams past and reported once.
 * Invalid UTF-8 is reported per line instead of being replaced silently.
 */
export async function* readLines(file: string, opts: ReadLinesOptions = {}): AsyncGenerator<SourceLine> {
  const maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const chunkSize = opts.chunkBytes ?? 1024 * 1024;
  // O_NONBLOCK: a FIFO put where a file was listed must not hang the open; then only a regular file is read.
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    if (!(await handle.stat()).isFile()) throw new AppError('Invalid', `${file} is not a regular file; it was not read`);
    const chunk = Buffer.allocUnsafe(chunkSize);
    let position = opts.start ?? 0;
    let lineNumber = opts.startLine ?? 0;
    let lineStart = position;
    let parts: Buffer[] = [];
    let held = 0;
    let lineBytes = 0;
    let overflow = false;

    const finish = (end: number, unterminated: boolean, whole?: Buffer): SourceLine => {
      lineNumber++;
      const content = overflow
        ? { problem: 'too_long' as const }
        : lineContent(whole ?? (parts.length === 1 ? parts[0]! : Buffer.concat(parts, held)), opts.raw);
      const line: SourceLine = { lineNumber, start: lineStart, end, ...content, bytes: lineBytes, unterminated };
      parts = [];
      held = 0;
      lineBytes = 0;
      overflow = false;
      lineStart = end;
      return line;
    };

    const keep = (piece: Buffer) => {
      if (piece.length === 0) return;
      lineBytes += piece.length;
      if (overflow) return;
      if (held + piece.length > maxLine) {
        overflow = true;
        parts = [];
        held = 0;
        return;
      }
      // Copy: the read buffer is reused for the next chunk.
      parts.push(Buffer.from(piece));
      held += piece.length;
    };

    for (;;) {
      const want = opts.end === undefined ? chunkSize : Math.min(chunkSize, opts.end - position);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(chunk, 0, want, position);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let from = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, from);
        if (nl === -1) {
          keep(data.subarray(from));
          break;
        }
        if (lineBytes === 0 && !overflow) {
          // The whole line is in this chunk: decoded (or handed out raw) from it, uncopied, before the next read.
          lineBytes = nl - from;
          overflow = lineBytes > maxLine;
          yield finish(position + nl + 1, false, data.subarray(from, nl));
        } else {
          keep(data.subarray(from, nl));
          yield finish(position + nl + 1, false);
        }
        from = nl + 1;
      }
      position += bytesRead;
      opts.onBytes?.(position);
    }
    if (lineBytes > 0 || parts.length > 0) yield finish(position, true);
  } finally {
    await handle.close();
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
