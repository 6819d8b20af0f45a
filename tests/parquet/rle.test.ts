// The writer's own RLE/bit-packing hybrid must give the library's bytes: levels and dictionary indexes
// are written by it, and a reader decodes them by the library's rules.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { Bytes, putRleBitPacked } from '../../src/core/parquet/rle';
import { ParquetTable, type ParquetColumn } from '../../src/core/parquet/writer';
import { tempWorkspace } from '../helpers/workspace';

/** Deterministic values below 2^bitWidth, in runs of random length (1 to 40) or noise. */
function sampleValues(n: number, bitWidth: number, seed: number): Int32Array {
  const out = new Int32Array(n);
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < n;) {
    const v = bitWidth ? next() % 2 ** bitWidth : 0;
    const run = next() % 3 ? 1 : 1 + (next() % 40);
    for (let k = 0; k < run && i < n; k++) out[i++] = v;
  }
  return out;
}

describe('putRleBitPacked', () => {
  it("writes the library's bytes for runs, groups, a short tail and every width", () => {
    const out = new Bytes();
    for (const bitWidth of [0, 1, 2, 3, 7, 8, 9, 13, 17]) {
      for (const [n, seed] of [
        [0, 1],
        [1, 2],
        [7, 3],
        [8, 4],
        [9, 5],
        [1000, 6],
        [70_000, 7],
      ] as const) {
        const values = sampleValues(n, bitWidth, seed);
        const lib = new ByteWriter();
        const libBytes = writeRleBitPackedHybrid(lib, values, bitWidth);
        out.n = 3; // after other bytes, as the levels of a page follow each other
        const bytes = putRleBitPacked(out, values, bitWidth);
        expect(bytes).toBe(libBytes);
        expect(Buffer.from(out.view(3)).equals(Buffer.from(lib.getBytes()))).toBe(true);
      }
    }
  });
});

describe('ParquetTable checksum', () => {
  it('gives the size and SHA-256 of the file it wrote, and each close the same', () => {
    const columns: ParquetColumn[] = [
      { name: 'id', type: 'string', nullable: false, encoding: 'plain' },
      { name: 'text', type: 'string' },
    ];
    const file = path.join(tempWorkspace('reflection-parquet-checksum-'), 't.parquet');
    // past the writer's 1 MB chunk, so the file is hashed in several pieces
    const table = new ParquetTable(file, columns, { rowGroupRows: 5000 });
    for (let i = 0; i < 30_000; i++) {
      const id = createHash('sha256').update(String(i)).digest('hex'); // hex: snappy leaves most of it
      table.append({ id, text: i % 3 ? `text ${i} ${'x'.repeat(i % 97)}` : null });
    }
    const written = table.close();
    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    expect(written.bytes).toBe(bytes.length);
    expect(written.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(table.close()).toEqual(written);
  });
});
