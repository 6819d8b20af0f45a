// Entries that do not come as lines of a plain file: zstd archives and SQLite rows. They are
// decoded here and handed to the same TranscriptReader, in batches that commit with their cursor.
import { decompress } from 'fzstd';
import { writeTx } from '../db/connection';
import { parseJsonObject } from './lines';
import type { TranscriptReader, TranscriptRun } from './openclawTranscript';
import { handleEntry } from './stream';

/** One entry of a source: where it is (line number or row sequence), its JSON text, its row time. */
export interface SourceEvent {
  position: number;
  text?: string;
  at?: number;
  /** Why the entry could not be decoded (damaged zstd frame, invalid UTF-8). */
  problem?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a zstd frame (or several, concatenated) to UTF-8 text. Node 20 has no zlib zstd (it came
 * in 22.15), so this uses fzstd: pure JS, no native build or download, and it verifies nothing it
 * does not need to (OpenClaw's checksums are optional for reading).
 */
export function zstdToText(bytes: Uint8Array): string {
  return utf8.decode(decompress(bytes));
}

/** The text of a row stored either as event_json or as an event_zstd frame. */
export function rowText(json: unknown, zstd: unknown): { text?: string; problem?: string } {
  if (typeof json === 'string') return { text: json };
  if (zstd instanceof Uint8Array) {
    try {
      return { text: zstdToText(zstd) };
    } catch (e) {
      return { problem: `event_zstd could not be decompressed (${(e as Error).message.slice(0, 80)})` };
    }
  }
  return { problem: 'neither event_json nor event_zstd holds the event' };
}

/** Splits decompressed JSONL into numbered entries (1-based line numbers). */
export function jsonlEvents(text: string, firstPosition = 1): SourceEvent[] {
  const out: SourceEvent[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (clean.trim() !== '') out.push({ position: firstPosition + i, text: clean });
  });
  return out;
}

/**
 * Reads entries into the reader in one transaction, then runs `commit` in it (the cursor), so rows
 * and the cursor that says they were read land together. No savepoint per entry: the reader
 * validates an entry before it writes, and each of its writes is a statement SQLite rolls back alone.
 */
export function applyEvents(run: TranscriptRun, reader: TranscriptReader, source: string, events: SourceEvent[], commit: () => void): void {
  const { ctx, report } = run;
  writeTx(ctx.db, () => {
    for (const ev of events) {
      if (ev.problem || ev.text === undefined) {
        report.skip(source, ev.position, ev.problem ?? 'empty entry');
        continue;
      }
      const parsed = parseJsonObject(ev.text);
      if ('error' in parsed) {
        report.skip(source, ev.position, parsed.error);
        continue;
      }
      handleEntry(report, source, ev.position, () => reader.handle(parsed.value, ev.position, ev.at));
    }
    commit();
    // Held turns (the reader's and any the commit callback ended) belong to this transaction.
    run.store.flushTurns();
  });
}
