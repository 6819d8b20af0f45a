// The Parquet writer's speed-ups must not change what a reader gets: the snappy it uses (hysnappy)
// round-trips through the reader's decompressor, and a training file reads back to the same schema and rows as one written with the
// library's defaults (per-row Date and struct copies, dictionary trials and statistics on every column).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects, snappyUncompress } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { snappyCompressor } from 'hysnappy';
import { ParquetTable, parquetSchema, type ParquetColumn, type ParquetRow } from '../../src/core/parquet/writer';
import { TRAINING_COLUMNS } from '../../src/core/parquet/trainingRows';
import { tempWorkspace } from '../helpers/workspace';

/** Deterministic bytes: text with repeats (long matches, far offsets) and noise (literals). */
function sampleBytes(n: number, seed: number): Uint8Array {
  const words = ['User: ', 'Agent: ', 'remember ', 'the deploy ', 'runs at ', 'noon ', 'Decision: WRITE\n', 'é', '🙂'];
  let x = seed;
  let s = '';
  while (s.length < n) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += x % 7 === 0 ? String.fromCharCode(33 + (x % 90)) : words[x % words.length];
  }
  return new TextEncoder().encode(s).subarray(0, n);
}

describe('snappy', () => {
  it("compresses to what hyparquet's decompressor gives back as the input", () => {
    // one compressor for all, as a table uses one for all its pages: its hash table outlives each call
    const snappyCompress = snappyCompressor();
    for (const [n, seed] of [
      [0, 1],
      [1, 2],
      [14, 3],
      [15, 4],
      [61, 5],
      [300, 6],
      [70_000, 7],
      [400_000, 8],
      [70_000, 7],
      [2_500_000, 9],
      [14, 3],
    ] as const) {
      const input = sampleBytes(n, seed);
      const ours = snappyCompress(input);
      if (n > 1000) expect(ours.length).toBeLessThan(n / 2); // it compresses: the text repeats its words
      const back = new Uint8Array(input.length);
      snappyUncompress(ours, back);
      expect(Buffer.from(back).equals(Buffer.from(input))).toBe(true);
    }
  });

  it('compresses a page to the same bytes in a fresh compressor after the same pages', () => {
    const pages = [sampleBytes(300_000, 1), sampleBytes(80_000, 2), sampleBytes(300_000, 3)];
    const run = () => {
      const c = snappyCompressor();
      return pages.map((p) => Buffer.from(c(p)));
    };
    expect(run()).toEqual(run());
  });
});

const ulid = (i: number) => `01J${String(i).padStart(23, '0')}`;

function trainingFixture(n: number): ParquetRow[] {
  return Array.from({ length: n }, (_, i) => {
    const input = `User: message ${i % 7} ${'x'.repeat(i % 50)}\nAgent: ok`;
    const output = `Decision: ${i % 3 ? 'WRITE' : 'NO_WRITE'}\nReason: r${i % 4}`;
    return {
      sample_id: ulid(i),
      sample_type: i % 2 ? 'memory_gate_positive' : 'write_guardian_decision',
      session_id: `session-${i % 5}`,
      turn_id: ulid(i + 1000),
      decision_id: i % 4 ? ulid(i + 2000) : null,
      audit_id: i % 3 ? ulid(i + 3000) : undefined,
      correction_id: i % 9 ? null : ulid(i + 4000),
      split: i % 5 ? 'train' : 'validation',
      annotation_status: 'approved',
      annotated_by: i % 2 ? 'curator' : null,
      label: i % 3 ? 'WRITE' : 'NO_WRITE',
      fact: i % 3 ? `fact ${i % 11}` : null,
      quality_score: i % 6 ? (i % 10) / 10 : null,
      conversation_clarity: 0.5,
      decision_confidence: null,
      fact_verifiability: (i % 3) / 3,
      contains_pii: i % 8 === 0,
      instruction: i % 2 ? 'Decide whether to remember.' : 'Decide whether to write.',
      input,
      output,
      messages: [
        { role: 'system', content: 'Decide.' },
        { role: 'user', content: input },
        { role: 'assistant', content: output },
      ],
      // the gpt turn carries annotations the schema leaves out
      conversations: [
        { from: 'human', value: input },
        { from: 'gpt', value: output, memory_gate_decision: 'WRITE' },
      ],
      record_hash: `${i}`.padStart(64, 'a'),
      created_at: i % 2 ? Date.UTC(2026, 0, 1) + i * 1000 : new Date(Date.UTC(2026, 0, 1) + i * 1000),
    };
  });
}

/** The rows as the writer took them before: a Date per timestamp, struct elements copied to their fields. */
function libraryColumns(rows: ParquetRow[]) {
  return TRAINING_COLUMNS.map((c) => ({
    name: c.name,
    data: rows.map((r) => {
      const v = r[c.name];
      if (v === undefined || v === null) return null;
      if (c.type === 'timestamp') return v instanceof Date ? v : new Date(Number(v));
      if (c.type === 'struct-list') {
        return (v as Record<string, unknown>[]).map((el) => Object.fromEntries((c.fields ?? []).map((f) => [f, el[f] ?? null])));
      }
      return v;
    }),
  }));
}

async function readBack(bytes: ArrayBuffer) {
  const meta = parquetMetadata(bytes);
  return { schema: meta.schema, rows: await parquetReadObjects({ file: bytes }), meta };
}

describe('ParquetTable', () => {
  it('reads back to the same schema and rows as a file written with the library defaults', async () => {
    const rows = trainingFixture(2500);
    const file = path.join(tempWorkspace('reflection-parquet-writer-'), 'train.parquet');
    const table = new ParquetTable(file, TRAINING_COLUMNS, { rowGroupRows: 1000 });
    for (const r of rows) table.append({ ...r });
    table.close();
    const b = fs.readFileSync(file);
    const ours = await readBack(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const reference = await readBack(
      parquetWriteBuffer({
        columnData: libraryColumns(rows),
        schema: parquetSchema(TRAINING_COLUMNS),
        rowGroupSize: 1000,
      }),
    );
    expect(ours.schema).toEqual(reference.schema);
    expect(ours.rows).toHaveLength(2500);
    expect(ours.rows).toEqual(reference.rows);
    // what changed is only how: ids PLAIN, chat turns always a dictionary, free text without min/max statistics
    const chunk = (name: string) => ours.meta.row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!;
    expect(chunk('sample_id').encodings).toEqual(['PLAIN']);
    expect(chunk('input').statistics).toBeUndefined();
    expect(chunk('label').encodings).toContain('RLE_DICTIONARY');
    const answers = ours.meta.row_groups[0]!.columns.find(
      (c) => c.meta_data!.path_in_schema.join('.') === 'conversations.list.element.value',
    );
    expect(answers!.meta_data!.encodings).toContain('RLE_DICTIONARY');
    expect(chunk('created_at').statistics?.min_value).toBeDefined();
    // hex hashes are stored as they are: snappy saved 6% of them, slowly
    expect(chunk('record_hash').codec).toBe('UNCOMPRESSED');
    expect(chunk('input').codec).toBe('SNAPPY');
  });
});

describe('ParquetTable column chunks', () => {
  // null and empty lists, null struct fields, text that is not ASCII: the levels, dictionaries and
  // statistics written by our column chunks must be those the library writes for the same rows
  const columns: readonly ParquetColumn[] = [
    { name: 'id', type: 'string', nullable: false, encoding: 'plain' },
    { name: 'note', type: 'string' },
    { name: 'tags', type: 'string-list' },
    { name: 'turns', type: 'struct-list', fields: ['from', 'value'] },
    { name: 'must', type: 'string-list', nullable: false, encoding: 'dictionary' },
    { name: 'score', type: 'double' },
    { name: 'odd', type: 'double', encoding: 'plain' },
    { name: 'flag', type: 'bool' },
    { name: 'bits', type: 'bool', nullable: false, encoding: 'plain' },
    { name: 'at', type: 'timestamp' },
    // PLAIN int64 halves: times before 1970 and past 2^32 ms
    { name: 'then', type: 'timestamp', nullable: false, encoding: 'plain' },
  ];
  const texts = ['plain', 'é accent', '🙂 emoji', '\ue000 private use', 'z last', '', 'Ünïcode'];
  const rows: ParquetRow[] = Array.from({ length: 3000 }, (_, i) => ({
    id: `${texts[i % texts.length]}-${i}`,
    note: i % 4 ? texts[(i * 3) % texts.length] : null,
    tags: i % 5 === 0 ? null : i % 5 === 1 ? [] : texts.slice(0, i % 4),
    turns:
      i % 6 === 0
        ? null
        : i % 6 === 1
          ? []
          : [
              { from: 'human', value: `${texts[i % texts.length]} ${i}` },
              { from: i % 3 ? 'gpt' : null, value: texts[(i + 1) % texts.length] },
            ],
    must: [texts[i % 3]!],
    score: i % 7 ? i / 7 : null,
    odd: i % 11 === 0 ? NaN : i % 11 === 1 ? -0 : i % 11 === 2 ? null : (i % 5) - 2,
    flag: i % 5 === 0 ? null : i % 3 === 0,
    bits: i % 4 === 1,
    at: i % 9 ? Date.UTC(2026, 0, 1) + (i % 50) * 1000 : null,
    then: i % 3 === 0 ? -86_400_000 * (i % 1000) - 1 : i % 3 === 1 ? 2 ** 32 * (i % 7) + i : Date.UTC(1969, 11, 31, 23, 59, 59) + i,
  }));

  it('reads back to the rows, statistics and encodings the library writes', async () => {
    const file = path.join(tempWorkspace('reflection-parquet-chunks-'), 't.parquet');
    const table = new ParquetTable(file, columns, { rowGroupRows: 1200 });
    for (const r of rows) table.append(r);
    table.close();
    const b = fs.readFileSync(file);
    const ours = await readBack(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const reference = await readBack(
      parquetWriteBuffer({
        columnData: columns.map((c) => ({
          name: c.name,
          data: rows.map((r) => r[c.name] ?? null),
          ...(c.encoding ? { encoding: c.encoding === 'plain' ? ('PLAIN' as const) : ('RLE_DICTIONARY' as const) } : {}),
        })),
        schema: parquetSchema(columns),
        rowGroupSize: 1200,
      }),
    );
    expect(ours.rows).toEqual(reference.rows);
    expect(ours.schema).toEqual(reference.schema);
    const chunks = (m: typeof ours.meta) =>
      m.row_groups.map((g) =>
        g.columns.map((c) => {
          const { path_in_schema, encodings, statistics, num_values, encoding_stats } = c.meta_data!;
          return { path_in_schema, encodings, statistics, num_values, encoding_stats };
        }),
      );
    expect(chunks(ours.meta)).toEqual(chunks(reference.meta));
    expect(ours.meta.row_groups.map((g) => g.num_rows)).toEqual([1200n, 1200n, 600n]);
  });
});
