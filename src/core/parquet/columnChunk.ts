// Column chunks of one row group, written without the library's per-value path where our columns'
// shape is known. Text leaves (flat strings, list elements, struct fields) are encoded to UTF-8 straight
// into one page buffer: the library made a Uint8Array per value (TextEncoder), sliced every array per
// page and walked each list value through its generic Dremel shredder, and that garbage and copying
// was about half of a Parquet export. The file is the same Parquet: pages, levels, dictionaries and
// statistics follow the library's rules (its dictionary trial, thrift page headers and RLE/bit-packing
// are called as they are), so a reader gets the same rows, schema and footer.
import type { ColumnChunk, OffsetIndex, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { useDictionary } from 'hyparquet-writer/src/dictionary.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { AppError } from '../../shared/errors';

type ColumnEncoder = Parameters<typeof writeColumn>[0]['column'];
type Writer = Parameters<typeof writeColumn>[0]['writer'];
export type WrittenChunk = ReturnType<typeof writeColumn>;

/** One leaf of the schema: a flat column, a list's element or a struct field of a list's elements. */
export interface Leaf {
  encoder: ColumnEncoder;
  maxDef: number;
  maxRep: number;
  /** A UTF8 byte array: written by writeTextChunk; other leaves go through the library's writeColumn. */
  text: boolean;
  /** 'plain' or 'dictionary' when the column asks for one; otherwise the library's dictionary trial. */
  encoding?: 'plain' | 'dictionary';
}

/** A leaf's slots in one row group: a value (null where a level says it is absent) and its levels. */
export interface LeafData {
  values: unknown[];
  /** Definition levels, empty when maxDef is 0. */
  def: number[];
  /** Repetition levels, empty when maxRep is 0. */
  rep: number[];
}

/** Page size the library aims at (its default): bytes of plain values, or 4 per dictionary index. */
const PAGE_BYTES = 1 << 20;

/** A growable byte buffer reused by every page of a table. */
export class PageBuffer {
  buf = Buffer.allocUnsafeSlow(4 << 20);
  ensure(bytes: number, used: number): void {
    if (used + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, used + bytes));
    this.buf.copy(next, 0, 0, used);
    this.buf = next;
  }
}

/**
 * Writes a string as UTF-8 at `pos` (room for 3 bytes per UTF-16 unit is ensured by the caller).
 * ASCII, nearly all of our text, is copied in a loop; anything else goes to the native encoder.
 * Returns the byte length, negative when the string was not ASCII.
 */
function putUtf8(buf: Buffer, s: string, pos: number): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return -buf.write(s, pos) - 1;
    buf[pos + i] = c;
  }
  return n;
}

/** Writes non-null strings as PLAIN byte arrays (length, bytes) from slot `start` to `end`; returns [bytes, ascii]. */
function plainStrings(pb: PageBuffer, values: unknown[], start: number, end: number): { used: number; ascii: boolean } {
  let used = 0;
  let ascii = true;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const s = v as string;
    pb.ensure(4 + 3 * s.length, used);
    const buf = pb.buf;
    let n = putUtf8(buf, s, used + 4);
    if (n < 0) {
      n = -n - 1;
      ascii = false;
    }
    buf.writeUInt32LE(n, used);
    used += 4 + n;
  }
  return { used, ascii };
}

/** The library's comparison of strings: UTF-8 byte order, which is code point order (`<` is UTF-16 order). */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i > 0 && a.charCodeAt(i - 1) >= 0xd800 && a.charCodeAt(i - 1) <= 0xdbff) i--;
  while (i < a.length && i < b.length) {
    const x = codePoint(a, i);
    const y = codePoint(b, i);
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

function codePoint(s: string, i: number): number {
  const c = s.codePointAt(i) ?? 0xfffd;
  return c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
}

/** Min and max of strings as the library's statistics order them; for ASCII `<` is that order. */
function stringBounds(values: readonly unknown[], ascii: boolean): { min?: string; max?: string } {
  let min: string | undefined;
  let max: string | undefined;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const s = v as string;
    if (min === undefined || max === undefined) {
      min = max = s;
    } else if (ascii) {
      if (s < min) min = s;
      else if (s > max) max = s;
    } else {
      if (compareCodePoints(s, min) < 0) min = s;
      if (compareCodePoints(s, max) > 0) max = s;
    }
  }
  return { min, max };
}

interface Page {
  levels: Uint8Array;
  defBytes: number;
  repBytes: number;
  data: Uint8Array;
  numValues: number;
  numNulls: number;
  numRows: number;
  encoding: 'PLAIN' | 'RLE_DICTIONARY';
}

/** Writes one data page (v2): header, levels, compressed values. Returns its uncompressed size with the header. */
function writePage(w: Writer, leaf: Leaf, p: Page): number {
  const { codec, compressors } = leaf.encoder;
  const compressed = compressors[codec]?.(p.data) ?? p.data;
  const headerStart = w.offset;
  writePageHeader(w, {
    type: 'DATA_PAGE_V2',
    uncompressed_page_size: p.levels.length + p.data.length,
    compressed_page_size: p.levels.length + compressed.length,
    data_page_header_v2: {
      num_values: p.numValues,
      num_nulls: p.numNulls,
      num_rows: p.numRows,
      encoding: p.encoding,
      definition_levels_byte_length: p.defBytes,
      repetition_levels_byte_length: p.repBytes,
      is_compressed: Boolean(codec),
    },
  });
  const headerBytes = w.offset - headerStart;
  w.appendBytes(p.levels);
  w.appendBytes(compressed);
  return headerBytes + p.levels.length + p.data.length;
}

function writeDictionary(w: Writer, leaf: Leaf, pb: PageBuffer, dictionary: readonly unknown[]): number {
  const { codec, compressors } = leaf.encoder;
  const { used } = plainStrings(pb, dictionary as unknown[], 0, dictionary.length);
  const bytes = pb.buf.subarray(0, used);
  const compressed = compressors[codec]?.(bytes) ?? bytes;
  const headerStart = w.offset;
  writePageHeader(w, {
    type: 'DICTIONARY_PAGE',
    uncompressed_page_size: used,
    compressed_page_size: compressed.length,
    dictionary_page_header: { num_values: dictionary.length, encoding: 'PLAIN' },
  });
  const headerBytes = w.offset - headerStart;
  w.appendBytes(compressed);
  return headerBytes + used;
}

/** Levels of slots [start, end) as the page writes them: repetition first, each RLE/bit-packed. */
function pageLevels(
  leaf: Leaf,
  d: LeafData,
  start: number,
  end: number,
): Pick<Page, 'levels' | 'defBytes' | 'repBytes' | 'numNulls' | 'numRows'> {
  const lw = new ByteWriter();
  let numNulls = 0;
  let numRows = end - start;
  let repBytes = 0;
  let defBytes = 0;
  if (leaf.maxRep) {
    const rep = d.rep.slice(start, end);
    numRows = 0;
    for (const r of rep) if (r === 0) numRows++;
    repBytes = writeRleBitPackedHybrid(lw, rep, Math.ceil(Math.log2(leaf.maxRep + 1)));
  }
  if (leaf.maxDef) {
    const def = d.def.slice(start, end);
    for (const x of def) if (x < leaf.maxDef) numNulls++;
    defBytes = writeRleBitPackedHybrid(lw, def, Math.ceil(Math.log2(leaf.maxDef + 1)));
  }
  return { levels: lw.getBytes(), defBytes, repBytes, numNulls, numRows };
}

/** Page boundaries at row starts, each page about PAGE_BYTES of values (the library's rule). */
function pageBounds(d: LeafData, dictionary: boolean): number[] {
  const ends: number[] = [];
  const { values, rep } = d;
  let bytes = 0;
  let start = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const size = v === null || v === undefined ? 0 : dictionary ? 4 : (v as string).length;
    bytes += size;
    if (bytes >= PAGE_BYTES && i > start && (!rep.length || rep[i] === 0)) {
      ends.push(i);
      start = i;
      bytes = size;
    }
  }
  ends.push(values.length);
  return ends;
}

/** The dictionary, if the column takes one: asked for, or won the library's trial (it must halve the bytes). */
function dictionaryOf(leaf: Leaf, values: unknown[]): { dictionary?: unknown[]; indexes?: number[] } {
  if (leaf.encoding === 'plain') return {};
  const forced = leaf.encoding === 'dictionary' ? ('RLE_DICTIONARY' as const) : undefined;
  return useDictionary(values, 'BYTE_ARRAY', undefined, forced, leaf.encoder.dictionarySize, leaf.maxDef === 0);
}

/** Dictionary indexes of the non-null slots [start, end), bit width first, RLE/bit-packed. */
function indexPage(indexes: number[], values: unknown[], start: number, end: number): Uint8Array {
  const idx: number[] = [];
  let max = 0;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const x = indexes[i]!;
    idx.push(x);
    if (x > max) max = x;
  }
  const bitWidth = Math.ceil(Math.log2(max + 1));
  const pw = new ByteWriter();
  pw.appendUint8(bitWidth);
  writeRleBitPackedHybrid(pw, idx, bitWidth);
  return pw.getBytes();
}

/** A text leaf's column chunk: dictionary page if any, data pages, and the chunk's metadata. */
export function writeTextChunk(w: Writer, leaf: Leaf, d: LeafData, pb: PageBuffer): WrittenChunk {
  const { encoder } = leaf;
  const { values } = d;
  const offsetStart = w.offset;
  let uncompressed = 0;
  const { dictionary, indexes } = dictionaryOf(leaf, values);
  let dictionaryPageOffset: bigint | undefined;
  const encodings: ('PLAIN' | 'RLE_DICTIONARY')[] = ['PLAIN'];
  if (dictionary && indexes) {
    dictionaryPageOffset = BigInt(w.offset);
    uncompressed += writeDictionary(w, leaf, pb, dictionary);
    encodings.push('RLE_DICTIONARY');
  }
  const encoding = dictionary ? 'RLE_DICTIONARY' : 'PLAIN';
  const dataPageOffset = BigInt(w.offset);
  const ends = pageBounds(d, Boolean(dictionary));
  const offsetIndex: OffsetIndex | undefined = encoder.offsetIndex && ends.length > 1 ? { page_locations: [] } : undefined;
  let ascii = true;
  let start = 0;
  let firstRow = 0;
  for (const end of ends) {
    const pageOffset = w.offset;
    const levels = pageLevels(leaf, d, start, end);
    let data: Uint8Array;
    if (dictionary && indexes) {
      data = indexPage(indexes, values, start, end);
    } else {
      const plain = plainStrings(pb, values, start, end);
      ascii &&= plain.ascii;
      data = pb.buf.subarray(0, plain.used);
    }
    uncompressed += writePage(w, leaf, { ...levels, data, numValues: end - start, encoding });
    offsetIndex?.page_locations.push({
      offset: BigInt(pageOffset),
      compressed_page_size: w.offset - pageOffset,
      first_row_index: BigInt(firstRow),
    });
    firstRow += levels.numRows;
    start = end;
  }
  const chunk: ColumnChunk = {
    meta_data: {
      type: 'BYTE_ARRAY',
      encodings,
      path_in_schema: encoder.schemaPath.slice(1).map((s) => s.name),
      codec: encoder.codec ?? 'UNCOMPRESSED',
      num_values: BigInt(values.length),
      total_compressed_size: BigInt(w.offset - offsetStart),
      total_uncompressed_size: BigInt(uncompressed),
      data_page_offset: dataPageOffset,
      dictionary_page_offset: dictionaryPageOffset,
      ...(encoder.stats ? statisticsOf(d, dictionary, ascii, dictionaryPageOffset !== undefined, ends.length, encoding) : {}),
    },
    file_offset: BigInt(offsetStart),
  };
  return { chunk, offsetIndex };
}

/** Statistics and page-encoding counts, as the library writes them for a column with statistics. */
function statisticsOf(
  d: LeafData,
  dictionary: unknown[] | undefined,
  ascii: boolean,
  hasDictionaryPage: boolean,
  pages: number,
  encoding: 'PLAIN' | 'RLE_DICTIONARY',
) {
  let nulls = 0;
  for (const v of d.values) if (v === null || v === undefined) nulls++;
  // the dictionary holds every distinct value, so its bounds are the column's
  const { min, max } = dictionary ? stringBounds(dictionary, isAscii(dictionary)) : stringBounds(d.values, ascii);
  return {
    statistics: { min_value: min, max_value: max, null_count: BigInt(nulls), nan_count: undefined },
    encoding_stats: [
      ...(hasDictionaryPage ? [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }] : []),
      { page_type: 'DATA_PAGE_V2' as const, encoding, count: pages },
    ],
  };
}

function isAscii(values: readonly unknown[]): boolean {
  for (const v of values) {
    if (typeof v !== 'string') continue;
    for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/** Any other leaf (numbers, booleans, timestamps, JSON): the library's column writer, given our levels. */
export function writeLibraryChunk(w: Writer, leaf: Leaf, d: LeafData): WrittenChunk {
  return writeColumn({
    writer: w,
    column: leaf.encoder,
    pageData: { values: d.values as never, definitionLevels: d.def, repetitionLevels: d.rep, maxDefinitionLevel: leaf.maxDef },
  });
}

/** Levels of a flat column: 1 where a value is present, 0 where it is null. */
export function flatLeaf(values: unknown[], maxDef: number): LeafData {
  if (!maxDef) return { values, def: [], rep: [] };
  const def = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) def[i] = values[i] === null || values[i] === undefined ? 0 : 1;
  return { values, def, rep: [] };
}

/**
 * The slots of a list column's leaves (a string list's element, or each field of a struct list's
 * elements), shredded for this fixed shape: a null list is one slot at level 0, an empty list one
 * slot at the list's level, each element a slot whose repetition level is 1 after the first.
 */
export function listLeaves(name: string, rows: readonly unknown[], nullable: boolean, fields: readonly string[] | null): LeafData[] {
  const width = fields ? fields.length : 1;
  const out: LeafData[] = Array.from({ length: width }, () => ({ values: [], def: [], rep: [] }));
  const listDef = nullable ? 1 : 0;
  for (const row of rows) {
    if (row === null || row === undefined) {
      for (const o of out) push(o, null, 0, 0);
      continue;
    }
    const list = row as unknown[];
    if (!list.length) {
      for (const o of out) push(o, null, listDef, 0);
      continue;
    }
    for (let i = 0; i < list.length; i++) {
      const el = list[i];
      const rep = i ? 1 : 0;
      if (el === null || el === undefined) throw new AppError('Invalid', `parquet column ${name}: a list element is null`);
      if (!fields) {
        push(out[0]!, el, listDef + 1, rep);
        continue;
      }
      for (let k = 0; k < width; k++) {
        const v = (el as Record<string, unknown>)[fields[k]!];
        if (v === null || v === undefined) push(out[k]!, null, listDef + 1, rep);
        else push(out[k]!, v, listDef + 2, rep);
      }
    }
  }
  return out;
}

function push(o: LeafData, value: unknown, def: number, rep: number): void {
  o.values.push(value);
  o.def.push(def);
  o.rep.push(rep);
}

export type { SchemaElement };
