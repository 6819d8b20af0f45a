// Column chunks of one row group, written without the library's per-value path where our columns'
// shape is known. A text leaf (a flat string column, a list's element, a struct field of a list's
// elements) takes each value as it is appended: PLAIN columns encode it to UTF-8 at once into the
// chunk's byte buffer, dictionary columns look it up in the chunk's dictionary, and its levels go into
// byte arrays; doubles, booleans and timestamps go into a Float64Array. A row group holds no row
// objects, only bytes, numbers, indexes and distinct strings: the library's path (a Uint8Array per
// value, arrays sliced per page, a generic Dremel walk, rows held until the group was written and
// copied by every scavenge meanwhile) was about half of an export.
// The file is the same Parquet: pages, levels, dictionaries and statistics follow the library's rules
// (its dictionary trial and statistics are reproduced below; thrift page headers, RLE/bit-packing and
// the compressor are called as they are), so a reader gets the same rows, schema and footer. The
// library's ParquetWriter still writes the file's head, page indexes and footer.
import type { ColumnChunk, OffsetIndex } from 'hyparquet';
import type { ChunkStatistics } from 'hyparquet-writer/src/types.js';
import { ByteWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { AppError } from '../../shared/errors';
import { Bytes, putRleBitPacked } from './rle';
import type { StringIds } from './stringIds';

type ColumnEncoder = Parameters<typeof writeColumn>[0]['column'];
type Writer = Parameters<typeof writeColumn>[0]['writer'];
export type WrittenChunk = ReturnType<typeof writeColumn>;

/** One leaf of the schema: a flat column, a list's element or a struct field of a list's elements. */
export interface Leaf {
  encoder: ColumnEncoder;
  maxDef: number;
  maxRep: number;
  /** A UTF8 byte array: a TextLeaf; other leaves go through the library's writeColumn. */
  text: boolean;
  /** 'plain' or 'dictionary' when the column asks for one; otherwise the library's dictionary trial. */
  encoding?: 'plain' | 'dictionary';
}

/** Page size the library aims at (its default): UTF-16 units of plain values, or 4 per dictionary index. */
const PAGE_BYTES = 1 << 20;

/** A page's levels, and a dictionary index page, each made just before the page is written (and then copied). */
const LEVELS = new Bytes();
const INDEXES = new Bytes();

/**
 * Node's UTF-8 encoder of a Buffer, called without Buffer#write's argument checks (its offset is checked
 * and its length worked out on every call; here the caller has made room for 3 bytes per UTF-16 unit).
 */
const nodeUtf8Write = (Buffer.prototype as unknown as { utf8Write?: (s: string, offset: number) => number }).utf8Write;
const utf8Write = nodeUtf8Write
  ? (buf: Buffer, s: string, at: number): number => nodeUtf8Write.call(buf, s, at)
  : (buf: Buffer, s: string, at: number): number => buf.write(s, at);

/** A growable byte buffer. */
export class PageBuffer {
  buf: Buffer;
  used = 0;
  constructor(bytes = 1 << 16) {
    this.buf = Buffer.allocUnsafeSlow(bytes);
  }
  ensure(bytes: number): void {
    if (this.used + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.used + bytes));
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }
  /**
   * Appends a string as a PLAIN byte array: 4-byte length, then UTF-8. A short ASCII string (ids,
   * labels) is copied in a loop, cheaper than a call into the native encoder; a longer one, or one
   * that is not ASCII, goes to the native encoder (twice the loop's speed past about 32 characters).
   * Returns false if the string is not ASCII.
   */
  putString(s: string): boolean {
    const n = s.length;
    this.ensure(4 + 3 * n);
    const buf = this.buf;
    const used = this.used;
    const at = used + 4;
    let bytes = n;
    if (n > 32) {
      bytes = utf8Write(buf, s, at);
    } else {
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) {
          bytes = utf8Write(buf, s, at);
          break;
        }
        buf[at + i] = c;
      }
    }
    // the length, little-endian (writeUInt32LE checks its arguments on every call)
    buf[used] = bytes & 0xff;
    buf[used + 1] = (bytes >>> 8) & 0xff;
    buf[used + 2] = (bytes >>> 16) & 0xff;
    buf[used + 3] = bytes >>> 24;
    this.used = at + bytes;
    // as many bytes as UTF-16 units: every unit was ASCII (any other takes 2 or more bytes)
    return bytes === n;
  }
}

/** A growable array of small integers (levels) or of dictionary indexes. */
class Ints<T extends Uint8Array | Int32Array> {
  n = 0;
  constructor(public a: T) {}
  push(x: number): void {
    if (this.n === this.a.length) {
      const next = new (this.a.constructor as new (n: number) => T)(this.a.length * 2);
      next.set(this.a);
      this.a = next;
    }
    this.a[this.n++] = x;
  }
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

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Min and max of strings in the library's statistics order, updated a value at a time. */
class Bounds {
  min: string | undefined;
  max: string | undefined;
  /** All values so far were ASCII, for which `<` is that order. */
  private ascii = true;
  add(s: string, ascii: boolean): void {
    this.ascii &&= ascii;
    if (this.min === undefined || this.max === undefined) {
      this.min = this.max = s;
    } else if (this.ascii) {
      if (s < this.min) this.min = s;
      else if (s > this.max) this.max = s;
    } else {
      if (compareCodePoints(s, this.min) < 0) this.min = s;
      if (compareCodePoints(s, this.max) > 0) this.max = s;
    }
  }
}

/**
 * The library's choice of a dictionary for a chunk of `slots` (index per slot, -1 for null), given
 * the size of each of its `count` distinct values: a sample of 1,000 slots spread over the chunk
 * rejects it when its distinct values are over 90% of its bytes; otherwise the dictionary and its
 * bit-packed indexes must at most halve the PLAIN bytes. Sizes are the library's estimates (a
 * string's UTF-16 length, 8 for a double); `prefix` is the length a byte array carries (4).
 */
function dictionaryWins(idx: Int32Array, slots: number, count: number, sizes: Int32Array | null, width: number, prefix: number): boolean {
  // sizes: each distinct value's size, or null when every value is `width` bytes (a size callback per slot
  // was most of this function's time)
  const sampleSize = Math.min(slots, 1000);
  const seen = new Set<number>();
  let sampleDistinct = 0;
  let sampleTotal = 0;
  for (let i = 0; i < sampleSize; i++) {
    const at = sampleSize === 1 ? 0 : Math.floor((i * (slots - 1)) / (sampleSize - 1));
    const k = idx[at]!;
    const bytes = k < 0 ? 0 : (sizes ? sizes[k]! : width) + prefix;
    if (!seen.has(k)) {
      seen.add(k);
      sampleDistinct += bytes;
    }
    sampleTotal += bytes;
  }
  if (!sampleTotal || sampleDistinct / sampleTotal > 0.9) return false;
  let total = 0;
  let nonNull = 0;
  for (let i = 0; i < slots; i++) {
    const k = idx[i]!;
    if (k < 0) continue;
    total += sizes ? sizes[k]! : width;
    nonNull++;
  }
  let distinct = 0;
  for (let k = 0; k < count; k++) distinct += sizes ? sizes[k]! : width;
  const indexBytes = Math.ceil((nonNull * Math.ceil(Math.log2(count))) / 8);
  return 2 * (distinct + count * prefix + indexBytes) <= total + nonNull * prefix;
}

interface Page {
  levels: Uint8Array;
  defBytes: number;
  repBytes: number;
  data: Uint8Array;
  numValues: number;
  numNulls: number;
  numRows: number;
  encoding: 'PLAIN' | 'RLE_DICTIONARY' | 'RLE';
}

/** What a chunk's pages came to, for its metadata. */
interface Written {
  uncompressed: number;
  offsetIndex: OffsetIndex | undefined;
  pages: number;
  dataPageOffset: bigint;
  dictionaryPageOffset: bigint | undefined;
  encoding: Page['encoding'];
}

/**
 * A leaf's slots and levels for the current row group, and the pages of its column chunk: levels,
 * page headers and page ends as the library writes them.
 */
abstract class LeafChunk {
  protected slots = 0;
  protected nulls = 0;
  protected readonly def = new Ints(new Uint8Array(1024));
  protected readonly rep = new Ints(new Uint8Array(1024));

  constructor(readonly leaf: Leaf) {}

  protected resetLevels(): void {
    this.slots = this.nulls = 0;
    this.def.n = this.rep.n = 0;
  }

  /** The chunk's metadata, as the library's writeColumn builds it. */
  protected chunk(w: Writer, offsetStart: number, s: Written, statistics: ChunkStatistics | undefined): WrittenChunk {
    const { encoder } = this.leaf;
    const encodings: Page['encoding'][] = s.dictionaryPageOffset === undefined ? [s.encoding] : ['PLAIN', s.encoding];
    const chunk: ColumnChunk = {
      meta_data: {
        type: encoder.element.type!,
        encodings,
        path_in_schema: encoder.schemaPath.slice(1).map((e) => e.name),
        codec: encoder.codec ?? 'UNCOMPRESSED',
        num_values: BigInt(this.slots),
        total_compressed_size: BigInt(w.offset - offsetStart),
        total_uncompressed_size: BigInt(s.uncompressed),
        data_page_offset: s.dataPageOffset,
        dictionary_page_offset: s.dictionaryPageOffset,
        ...(encoder.stats
          ? {
              statistics,
              encoding_stats: [
                ...(s.dictionaryPageOffset !== undefined
                  ? [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }]
                  : []),
                { page_type: 'DATA_PAGE_V2' as const, encoding: s.encoding, count: s.pages },
              ],
            }
          : {}),
      },
      file_offset: BigInt(offsetStart),
    };
    return { chunk, offsetIndex: s.offsetIndex };
  }

  /**
   * Page ends at row starts, each page about PAGE_BYTES by `size` (the library's rule). maxSize: the
   * largest size a slot can have; when every slot at that size stays under a page (dictionary indexes and
   * numbers of a row group always do) the chunk is one page, found without a call per slot.
   */
  protected pageEnds(size: (slot: number) => number, maxSize = Infinity): number[] {
    if (this.slots * maxSize < PAGE_BYTES) return [this.slots];
    const ends: number[] = [];
    const rep = this.leaf.maxRep ? this.rep.a : null;
    let bytes = 0;
    let start = 0;
    for (let i = 0; i < this.slots; i++) {
      const s = size(i);
      bytes += s;
      if (bytes >= PAGE_BYTES && i > start && (!rep || rep[i] === 0)) {
        ends.push(i);
        start = i;
        bytes = s;
      }
    }
    ends.push(this.slots);
    return ends;
  }

  protected writePages(w: Writer, ends: number[], encoding: Page['encoding'], data: (page: number) => Uint8Array) {
    const offsetIndex: OffsetIndex | undefined = this.leaf.encoder.offsetIndex && ends.length > 1 ? { page_locations: [] } : undefined;
    let uncompressed = 0;
    let start = 0;
    let firstRow = 0;
    ends.forEach((end, k) => {
      const pageOffset = w.offset;
      const levels = this.pageLevels(start, end);
      uncompressed += this.writePage(w, { ...levels, data: data(k), numValues: end - start, encoding });
      offsetIndex?.page_locations.push({
        offset: BigInt(pageOffset),
        compressed_page_size: w.offset - pageOffset,
        first_row_index: BigInt(firstRow),
      });
      firstRow += levels.numRows;
      start = end;
    });
    return { uncompressed, offsetIndex, pages: ends.length };
  }

  /** Levels of slots [start, end) as the page writes them: repetition first, each RLE/bit-packed. */
  protected pageLevels(start: number, end: number): Pick<Page, 'levels' | 'defBytes' | 'repBytes' | 'numNulls' | 'numRows'> {
    const { maxDef, maxRep } = this.leaf;
    // the page writer copies the levels out before the next page's are made
    const lw = LEVELS;
    lw.n = 0;
    let numNulls = 0;
    let numRows = end - start;
    let repBytes = 0;
    let defBytes = 0;
    if (maxRep) {
      const rep = this.rep.a.subarray(start, end);
      numRows = 0;
      for (const r of rep) if (r === 0) numRows++;
      repBytes = putRleBitPacked(lw, rep, Math.ceil(Math.log2(maxRep + 1)));
    }
    if (maxDef) {
      const def = this.def.a.subarray(start, end);
      for (const x of def) if (x < maxDef) numNulls++;
      defBytes = putRleBitPacked(lw, def, Math.ceil(Math.log2(maxDef + 1)));
    }
    return { levels: lw.view(), defBytes, repBytes, numNulls, numRows };
  }

  /** One data page (v2): header, levels, compressed values. Returns its uncompressed size with the header. */
  protected writePage(w: Writer, p: Page): number {
    const { codec, compressors } = this.leaf.encoder;
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
        is_compressed: codec !== 'UNCOMPRESSED',
      },
    });
    const headerBytes = w.offset - headerStart;
    w.appendBytes(p.levels);
    w.appendBytes(compressed);
    return headerBytes + p.levels.length + p.data.length;
  }

  protected writeDictionaryPage(w: Writer, bytes: Uint8Array, count: number): number {
    const { codec, compressors } = this.leaf.encoder;
    const compressed = compressors[codec]?.(bytes) ?? bytes;
    const headerStart = w.offset;
    writePageHeader(w, {
      type: 'DICTIONARY_PAGE',
      uncompressed_page_size: bytes.length,
      compressed_page_size: compressed.length,
      dictionary_page_header: { num_values: count, encoding: 'PLAIN' },
    });
    const headerBytes = w.offset - headerStart;
    w.appendBytes(compressed);
    return headerBytes + bytes.length;
  }
}

/** A text leaf's values and levels for the current row group, and its column chunk once the group is full. */
export class TextLeaf extends LeafChunk {
  /** 'plain': values as PLAIN byte arrays, page ends (slot, byte offset) cut as they come. */
  private readonly plain: PageBuffer | null;
  private pageSlots: number[] = [];
  private pageOffsets: number[] = [];
  private pageUnits = 0;
  private pageStart = 0;
  private bounds = new Bounds();
  /**
   * Otherwise: the chunk's distinct values, each slot's index into them (-1: null), and by the row
   * group's string number (ids) the value's index plus one (0: not in this chunk yet).
   */
  private values: string[] = [];
  private readonly idx = new Ints(new Int32Array(1024));
  private local = new Int32Array(1024);

  constructor(
    leaf: Leaf,
    private readonly ids: StringIds,
  ) {
    super(leaf);
    this.plain = leaf.encoding === 'plain' ? new PageBuffer() : null;
  }

  /** One slot: a value (null where the levels say it is absent) and its levels. */
  add(value: string | null, def: number, rep: number): void {
    const { leaf } = this;
    if (leaf.maxDef) this.def.push(def);
    if (leaf.maxRep) this.rep.push(rep);
    const plain = this.plain;
    if (plain) {
      // a page may end only where a row starts, once it holds a page's worth (the library's rule)
      if (this.pageUnits >= PAGE_BYTES && this.slots > this.pageStart && rep === 0) {
        this.pageSlots.push(this.slots);
        this.pageOffsets.push(plain.used);
        this.pageStart = this.slots;
        this.pageUnits = 0;
      }
      if (value === null) {
        this.nulls++;
      } else {
        this.pageUnits += value.length;
        const ascii = plain.putString(value);
        if (leaf.encoder.stats) this.bounds.add(value, ascii);
      }
    } else if (value === null) {
      this.nulls++;
      this.idx.push(-1);
    } else {
      const id = this.ids.id(value);
      if (id >= this.local.length) this.growLocal(id);
      let k = this.local[id]! - 1;
      if (k < 0) {
        k = this.values.length;
        this.local[id] = k + 1;
        this.values.push(value);
      }
      this.idx.push(k);
    }
    this.slots++;
  }

  private growLocal(id: number): void {
    const next = new Int32Array(Math.max(this.local.length * 2, id + 1));
    next.set(this.local);
    this.local = next;
  }

  /** Writes the chunk (dictionary page if any, data pages) and starts the next row group empty. */
  write(w: Writer, scratch: PageBuffer): WrittenChunk {
    const offsetStart = w.offset;
    const s = this.plain ? this.writePlainPages(w) : this.writeDictionaryChunk(w, scratch);
    const stats = { min_value: s.bounds.min, max_value: s.bounds.max, null_count: BigInt(this.nulls), nan_count: undefined };
    const written = this.chunk(w, offsetStart, s, stats);
    this.reset();
    return written;
  }

  private reset(): void {
    this.resetLevels();
    this.idx.n = 0;
    if (this.plain) this.plain.used = 0;
    this.pageSlots = [];
    this.pageOffsets = [];
    this.pageUnits = this.pageStart = 0;
    this.bounds = new Bounds();
    if (this.values.length) this.local.fill(0);
    this.values = [];
  }

  private writePlainPages(w: Writer) {
    const plain = this.plain!;
    const ends = [...this.pageSlots, this.slots];
    const offsets = [0, ...this.pageOffsets, plain.used];
    const dataPageOffset = BigInt(w.offset);
    const pages = this.writePages(w, ends, 'PLAIN', (k) => plain.buf.subarray(offsets[k], offsets[k + 1]));
    return { ...pages, dataPageOffset, dictionaryPageOffset: undefined, encoding: 'PLAIN' as const, bounds: this.bounds };
  }

  private writeDictionaryChunk(w: Writer, scratch: PageBuffer) {
    const { values } = this;
    const idx = this.idx.a;
    const forced = this.leaf.encoding === 'dictionary';
    const bounds = new Bounds();
    if (this.leaf.encoder.stats) for (let i = 0; i < values.length; i++) bounds.add(values[i]!, isAscii(values[i]!));
    if (!forced && !dictionaryWins(idx, this.slots, values.length, lengthsOf(values), 0, 4)) {
      // PLAIN after all: the values again from the dictionary, a page at a time
      const ends = this.pageEnds((i) => (idx[i]! < 0 ? 0 : values[idx[i]!]!.length));
      const dataPageOffset = BigInt(w.offset);
      const pages = this.writePages(w, ends, 'PLAIN', (k) => {
        scratch.used = 0;
        for (let i = k ? ends[k - 1]! : 0; i < ends[k]!; i++) if (idx[i]! >= 0) scratch.putString(values[idx[i]!]!);
        return scratch.buf.subarray(0, scratch.used);
      });
      return { ...pages, dataPageOffset, dictionaryPageOffset: undefined, encoding: 'PLAIN' as const, bounds };
    }
    const dictionaryPageOffset = BigInt(w.offset);
    scratch.used = 0;
    for (const v of values) scratch.putString(v);
    let uncompressed = this.writeDictionaryPage(w, scratch.buf.subarray(0, scratch.used), values.length);
    const ends = this.pageEnds((i) => (idx[i]! < 0 ? 0 : 4), 4);
    const dataPageOffset = BigInt(w.offset);
    const pages = this.writePages(w, ends, 'RLE_DICTIONARY', (k) => indexPage(idx, k ? ends[k - 1]! : 0, ends[k]!));
    uncompressed += pages.uncompressed;
    return { ...pages, uncompressed, dataPageOffset, dictionaryPageOffset, encoding: 'RLE_DICTIONARY' as const, bounds };
  }
}

/** Each string's UTF-16 length (a loop: a chunk's few calls run before the optimizer has seen a callback). */
function lengthsOf(values: readonly string[]): Int32Array {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]!.length;
  return out;
}

/** The flat column kinds a ValueLeaf writes; values come as numbers (a boolean as 0 or 1, a timestamp in ms). */
export type ValueKind = 'double' | 'bool' | 'timestamp';

/**
 * A flat double, boolean or timestamp column's values for the current row group, and its chunk:
 * the library's encodings (a dictionary trial for doubles and timestamps unless asked otherwise,
 * RLE for booleans past 16 values) and statistics (NaN counted and skipped, signed zeros normalized,
 * timestamps as bigints), without its per-value conversions and generic statistics.
 */
export class ValueLeaf extends LeafChunk {
  /** The present values, in slot order. */
  private vals = new Float64Array(1024);
  private n = 0;

  constructor(
    leaf: Leaf,
    readonly kind: ValueKind,
  ) {
    super(leaf);
  }

  add(value: number | null): void {
    if (this.leaf.maxDef) this.def.push(value === null ? 0 : 1);
    this.slots++;
    if (value === null) {
      this.nulls++;
      return;
    }
    if (this.n === this.vals.length) {
      const next = new Float64Array(this.n * 2);
      next.set(this.vals);
      this.vals = next;
    }
    this.vals[this.n++] = value;
  }

  write(w: Writer, scratch: PageBuffer): WrittenChunk {
    const offsetStart = w.offset;
    const vals = this.vals.subarray(0, this.n);
    const s = this.kind === 'bool' ? this.writeBooleans(w, vals) : this.writeNumbers(w, vals, scratch);
    const written = this.chunk(w, offsetStart, s, this.statistics(vals));
    this.resetLevels();
    this.n = 0;
    return written;
  }

  /**
   * Each slot's index (-1: null), for page ends and the dictionary trial: the k-th present value's
   * `ofValue[k]`, or k itself without ofValue.
   */
  private slotIndexes(ofValue: Int32Array | null): Int32Array {
    const idx = new Int32Array(this.slots);
    const def = this.leaf.maxDef ? this.def.a : null;
    for (let i = 0, k = 0; i < this.slots; i++) {
      if (def && def[i] === 0) idx[i] = -1;
      else idx[i] = ofValue ? ofValue[k++]! : k++;
    }
    return idx;
  }

  private writeNumbers(w: Writer, vals: Float64Array, scratch: PageBuffer): Written {
    const width = 8;
    const plainOf = (from: Float64Array) => plainNumbers(scratch, from, this.kind === 'double');
    let dictionary: number[] | null = null;
    let idx: Int32Array | null = null;
    if (this.leaf.encoding !== 'plain') {
      // a Map of numbers: keys compare as the library's Map of values does (NaN once, 0 and -0 as one)
      const seen = new Map<number, number>();
      const values: number[] = [];
      const ofValue = new Int32Array(vals.length);
      for (let i = 0; i < vals.length; i++) {
        const v = vals[i]!;
        let k = seen.get(v);
        if (k === undefined) seen.set(v, (k = values.push(v) - 1));
        ofValue[i] = k;
      }
      idx = this.slotIndexes(ofValue);
      const wins = this.leaf.encoding === 'dictionary' || dictionaryWins(idx, this.slots, values.length, null, width, 0);
      if (wins) dictionary = values;
    }
    if (dictionary && idx) {
      const dictionaryPageOffset = BigInt(w.offset);
      let uncompressed = this.writeDictionaryPage(w, plainOf(Float64Array.from(dictionary)), dictionary.length);
      const ends = this.pageEnds((i) => (idx[i]! < 0 ? 0 : 4), 4);
      const dataPageOffset = BigInt(w.offset);
      const ix = idx;
      const pages = this.writePages(w, ends, 'RLE_DICTIONARY', (k) => indexPage(ix, k ? ends[k - 1]! : 0, ends[k]!));
      uncompressed += pages.uncompressed;
      return { ...pages, uncompressed, dataPageOffset, dictionaryPageOffset, encoding: 'RLE_DICTIONARY' };
    }
    const present = this.slotIndexes(null);
    const ends = this.pageEnds((i) => (present[i]! < 0 ? 0 : width), width);
    const dataPageOffset = BigInt(w.offset);
    const pages = this.writePages(w, ends, 'PLAIN', (k) => {
      const from = k ? firstPresent(present, ends[k - 1]!) : 0;
      return plainOf(vals.subarray(from, firstPresent(present, ends[k]!)));
    });
    return { ...pages, dataPageOffset, dictionaryPageOffset: undefined, encoding: 'PLAIN' };
  }

  /** Booleans: RLE (length-prefixed, bit width 1) past 16 slots, else PLAIN bits; never a dictionary. */
  private writeBooleans(w: Writer, vals: Float64Array): Written {
    const rle = this.leaf.encoding !== 'plain' && this.slots > 16;
    const present = this.slotIndexes(null);
    const ends = this.pageEnds((i) => (present[i]! < 0 ? 0 : 0.125), 0.125);
    const dataPageOffset = BigInt(w.offset);
    const encoding = rle ? 'RLE' : 'PLAIN';
    const pages = this.writePages(w, ends, encoding, (k) => {
      const from = k ? firstPresent(present, ends[k - 1]!) : 0;
      const bits = Uint8Array.from(vals.subarray(from, firstPresent(present, ends[k]!)));
      const out = new ByteWriter();
      if (rle) {
        const body = new Bytes();
        putRleBitPacked(body, bits, 1);
        out.appendUint32(body.n);
        out.appendBytes(body.view());
      } else {
        for (let i = 0; i < bits.length; i += 8) {
          let byte = 0;
          for (let j = 0; j < 8 && i + j < bits.length; j++) byte |= bits[i + j]! << j;
          out.appendUint8(byte);
        }
      }
      return out.getBytes();
    });
    return { ...pages, dataPageOffset, dictionaryPageOffset: undefined, encoding };
  }

  /** The library's statistics of the chunk's values (taken over the values, as it does). */
  private statistics(vals: Float64Array): ChunkStatistics {
    let min: number | undefined;
    let max: number | undefined;
    let nan = 0;
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i]!;
      if (Number.isNaN(v)) {
        nan++;
        continue;
      }
      if (min === undefined || v < min) min = v;
      if (max === undefined || v > max) max = v;
    }
    const nulls = BigInt(this.nulls);
    if (this.kind === 'bool') {
      return {
        min_value: min === undefined ? undefined : min === 1,
        max_value: max === undefined ? undefined : max === 1,
        null_count: nulls,
        nan_count: undefined,
      };
    }
    if (this.kind === 'timestamp') {
      return {
        min_value: min === undefined ? undefined : BigInt(min),
        max_value: max === undefined ? undefined : BigInt(max),
        null_count: nulls,
        nan_count: undefined,
      };
    }
    // signed zero as the spec asks: a min of zero is -0, a max of zero is +0
    return { min_value: min === 0 ? -0 : min, max_value: max === 0 ? 0 : max, null_count: nulls, nan_count: BigInt(nan) };
  }
}

/** The number of present values before slot `slot` (slots are -1 where null, else the value's position). */
function firstPresent(present: Int32Array, slot: number): number {
  for (let i = slot; i < present.length; i++) if (present[i]! >= 0) return present[i]!;
  let n = 0;
  for (let i = 0; i < slot; i++) if (present[i]! >= 0) n++;
  return n;
}

/**
 * PLAIN values of 8 bytes, little-endian: doubles as they are, timestamps as int64. A timestamp is an
 * integer, split exactly into two 32-bit halves below 2^53 (a BigInt per value cost more than the rest of the
 * column); beyond that it goes through BigInt as before, which rejects what int64 cannot hold.
 */
function plainNumbers(scratch: PageBuffer, from: Float64Array, doubles: boolean): Uint8Array {
  const n = from.length;
  scratch.used = 0;
  scratch.ensure(n * 8);
  const buf = scratch.buf;
  const view = new DataView(buf.buffer, buf.byteOffset, n * 8);
  for (let i = 0; i < n; i++) {
    const v = from[i]!;
    if (doubles) {
      view.setFloat64(i * 8, v, true);
    } else if (Math.abs(v) < 2 ** 53) {
      const high = Math.floor(v / 2 ** 32);
      view.setUint32(i * 8, v - high * 2 ** 32, true);
      view.setInt32(i * 8 + 4, high, true);
    } else {
      buf.writeBigInt64LE(BigInt(v), i * 8);
    }
  }
  scratch.used = n * 8;
  return buf.subarray(0, scratch.used);
}

/** Dictionary indexes of the non-null slots [start, end), bit width first, RLE/bit-packed. */
function indexPage(idx: Int32Array, start: number, end: number): Uint8Array {
  const present = new Int32Array(end - start);
  let n = 0;
  let max = 0;
  for (let i = start; i < end; i++) {
    const x = idx[i]!;
    if (x < 0) continue;
    present[n++] = x;
    if (x > max) max = x;
  }
  const bitWidth = Math.ceil(Math.log2(max + 1));
  // the page writer compresses and copies the page before the next one is made
  const pw = INDEXES;
  pw.n = 0;
  pw.ensure(1);
  pw.buf[pw.n++] = bitWidth;
  putRleBitPacked(pw, present.subarray(0, n), bitWidth);
  return pw.view();
}

/** Any other leaf (numbers, booleans, timestamps, JSON) of a flat column: the library's column writer. */
export function writeLibraryChunk(w: Writer, leaf: Leaf, values: unknown[]): WrittenChunk {
  const def: number[] = [];
  if (leaf.maxDef) for (const v of values) def.push(v === null || v === undefined ? 0 : 1);
  return writeColumn({
    writer: w,
    column: leaf.encoder,
    pageData: { values: values as never, definitionLevels: def, repetitionLevels: [], maxDefinitionLevel: leaf.maxDef },
  });
}

/**
 * A list cell (not null) shredded into its leaves (a string list's element, or each field of a struct
 * list's elements) for this fixed shape: an empty list is one slot at the list's level, each element a
 * slot whose repetition level is 1 after the first. Values that are not strings are stored as String()
 * gives them (a string list's null element as "null", as the writer always did); only a struct list's
 * null element is an error.
 */
export function addList(
  leaves: readonly TextLeaf[],
  name: string,
  list: unknown[],
  nullable: boolean,
  fields: readonly string[] | null,
): void {
  const listDef = nullable ? 1 : 0;
  if (!list.length) {
    for (const l of leaves) l.add(null, listDef, 0);
    return;
  }
  for (let i = 0; i < list.length; i++) {
    const el = list[i];
    const rep = i ? 1 : 0;
    if (!fields) {
      leaves[0]!.add(typeof el === 'string' ? el : String(el), listDef + 1, rep);
      continue;
    }
    if (el === null || el === undefined) throw new AppError('Invalid', `parquet column ${name}: a list element is null`);
    for (let k = 0; k < fields.length; k++) {
      const v = (el as Record<string, unknown>)[fields[k]!];
      if (v === null || v === undefined) leaves[k]!.add(null, listDef + 1, rep);
      else leaves[k]!.add(typeof v === 'string' ? v : String(v), listDef + 2, rep);
    }
  }
}
