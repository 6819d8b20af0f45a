// Streaming Parquet tables: each row's cells are encoded into their columns as it comes (columnChunk.ts)
// and written as one row group every `rowGroupRows`, so memory stays flat however large the export.
// The file appears only when it is complete (written as `<file>.partial`, renamed on close), so
// engines never read half a file.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ColumnChunk, SchemaElement } from 'hyparquet';
import { AppError } from '../../shared/errors';
import { snappyCompressor } from 'hysnappy';
import { StringIds } from './stringIds';
import { addList, PageBuffer, TextLeaf, ValueLeaf, writeLibraryChunk, type Leaf, type ValueKind } from './columnChunk';

/** Column kinds the exports need. `struct-list` is a LIST of STRUCTs of string fields (chat messages). */
export type ParquetColumnType = 'string' | 'int' | 'bigint' | 'double' | 'bool' | 'timestamp' | 'json' | 'string-list' | 'struct-list';

export interface ParquetColumn {
  name: string;
  type: ParquetColumnType;
  /** For `struct-list`: the string fields of each element, e.g. ['role', 'content']. */
  fields?: readonly string[];
  /** Default true; a required column rejects null. */
  nullable?: boolean;
  /**
   * Default: the writer tries a dictionary and keeps it if it halves the bytes.
   * 'plain': values are (nearly) all different (ids, hashes, transcripts); the trial would sample and
   * then hash every value only to reject the dictionary.
   * 'dictionary': values repeat across rows or fields (the same answer in many chat turns); a
   * dictionary that saves a third of the bytes also saves a third of the encoding and compression.
   */
  encoding?: 'plain' | 'dictionary';
  /**
   * Free text: no min/max statistics. A 16-byte prefix of a transcript prunes nothing, and finding it
   * compared every value of the column in JS.
   */
  noStatistics?: boolean;
  /**
   * Default true (snappy). false: values snappy barely shrinks and is slow on, such as hex hashes
   * (6% smaller at about 40 MB/s, against 80 MB/s on ids and 200 on text).
   */
  compressed?: boolean;
}

export type ParquetRow = Record<string, unknown>;

export interface ParquetTableOptions {
  rowGroupRows?: number;
  /** Key-value metadata stored in the footer (exporter version, export id). */
  metadata?: Record<string, string>;
}

export interface WrittenParquet {
  file: string;
  rows: number;
  /** The file's size and SHA-256, taken as it was written. */
  bytes: number;
  sha256: string;
}

/** Bytes the file writer gathers before it hashes and writes them (the library's fileWriter flushes at 1 MB too). */
const FILE_CHUNK = 1_000_000;

/**
 * The library's fileWriter, with the file held open and hashed as its chunks are written: the export's
 * checksum then needs no second read of the file, and a chunk costs one write instead of an open, an
 * append and a close.
 */
class HashingFileWriter extends ByteWriter {
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  private closed = false;

  constructor(file: string) {
    super(1 << 16);
    this.fd = fs.openSync(file, 'w');
  }

  override ensure(size: number): void {
    if (this.index > FILE_CHUNK) this.writeChunk();
    super.ensure(size);
  }

  override finish(): void {
    this.writeChunk();
    this.close();
  }

  /** The file's size and SHA-256 (once finished). */
  digest(): { bytes: number; sha256: string } {
    return { bytes: this.offset, sha256: this.hash.digest('hex') };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }

  private writeChunk(): void {
    const chunk = new Uint8Array(this.buffer, 0, this.index);
    this.hash.update(chunk);
    for (let at = 0; at < chunk.length;) at += fs.writeSync(this.fd, chunk, at);
    this.index = 0;
  }
}

const DEFAULT_ROW_GROUP = 10_000;

function leaf(name: string, type: ParquetColumnType, required: boolean): SchemaElement {
  const repetition_type = required ? 'REQUIRED' : 'OPTIONAL';
  switch (type) {
    case 'string':
      return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type };
    case 'json':
      return { name, type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type };
    case 'int':
      return { name, type: 'INT32', repetition_type };
    case 'bigint':
      return { name, type: 'INT64', repetition_type };
    case 'double':
      return { name, type: 'DOUBLE', repetition_type };
    case 'bool':
      return { name, type: 'BOOLEAN', repetition_type };
    case 'timestamp':
      return { name, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', repetition_type };
    default:
      throw new AppError('Internal', `column ${name}: ${type} is not a leaf type`);
  }
}

/** The Parquet schema (standard three-level LIST layout, which DuckDB, Arrow and Spark all read). */
export function parquetSchema(columns: readonly ParquetColumn[]): SchemaElement[] {
  const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }];
  for (const c of columns) {
    const required = c.nullable === false;
    if (c.type === 'string-list' || c.type === 'struct-list') {
      schema.push({ name: c.name, repetition_type: required ? 'REQUIRED' : 'OPTIONAL', converted_type: 'LIST', num_children: 1 });
      schema.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      if (c.type === 'string-list') {
        schema.push(leaf('element', 'string', true));
      } else {
        const fields = c.fields ?? [];
        if (!fields.length) throw new AppError('Internal', `column ${c.name}: a struct list needs fields`);
        schema.push({ name: 'element', repetition_type: 'REQUIRED', num_children: fields.length });
        for (const f of fields) schema.push(leaf(f, 'string', false));
      }
    } else {
      schema.push(leaf(c.name, c.type, required));
    }
  }
  return schema;
}

/**
 * Each column's leaves with what the column writer needs: the schema path (the same elements as
 * `schema`, which parquetSchema built from `columns`), levels and encoding.
 */
function leavesOf(columns: readonly ParquetColumn[], schema: SchemaElement[], compressors: Leaf['encoder']['compressors']): Leaf[][] {
  const root = schema[0]!;
  let next = 1;
  return columns.map((c) => {
    const list = c.type === 'string-list' || c.type === 'struct-list';
    const opt = c.nullable === false ? 0 : 1;
    const head = list ? [root, schema[next++]!, schema[next++]!] : [root];
    const struct = c.type === 'struct-list' ? schema[next++]! : null;
    const count = c.type === 'struct-list' ? (c.fields ?? []).length : 1;
    const leaves: Leaf[] = [];
    for (let k = 0; k < count; k++) {
      const element = schema[next++]!;
      const schemaPath = struct ? [...head, struct, element] : [...head, element];
      const maxDef = !list ? opt : struct ? opt + 2 : opt + 1;
      leaves.push({
        maxDef,
        maxRep: list ? 1 : 0,
        text: element.type === 'BYTE_ARRAY' && element.converted_type === 'UTF8',
        encoding: c.encoding,
        encoder: {
          columnName: schemaPath
            .slice(1)
            .map((e) => e.name)
            .join('.'),
          element,
          schemaPath,
          codec: c.compressed === false ? 'UNCOMPRESSED' : 'SNAPPY',
          compressors,
          stats: !c.noStatistics,
          statisticsTruncateLength: undefined,
          pageSize: 1 << 20,
          dictionarySize: undefined,
          columnIndex: false,
          offsetIndex: true,
          encoding: c.encoding ? (c.encoding === 'plain' ? 'PLAIN' : 'RLE_DICTIONARY') : undefined,
          bloomFilter: undefined,
        },
      });
    }
    return leaves;
  });
}

function missing(c: ParquetColumn): AppError {
  return new AppError('Invalid', `parquet column ${c.name} is required but the row has no value`);
}

/**
 * Coerces a cell of a column the library writes (ints, bigints, JSON) to what its Parquet type stores;
 * text cells go to a TextLeaf (addText), doubles, booleans and timestamps to a ValueLeaf (valueCell).
 */
function cell(c: ParquetColumn, value: unknown): unknown {
  if (value === undefined || value === null) {
    if (c.nullable === false) throw missing(c);
    return null;
  }
  switch (c.type) {
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'int':
      return Number(value);
    case 'bigint':
      return BigInt(Math.trunc(Number(value)));
    default:
      return value;
  }
}

/**
 * A function that reads a row's cells in column order into `cells`, compiled once per table: `row[column.name]`,
 * with a name that changes from column to column, took V8's megamorphic keyed-load path for every cell. The
 * names are the columns' own, quoted as JSON string literals.
 */
function cellReader(columns: readonly ParquetColumn[]): (row: ParquetRow, cells: unknown[]) => void {
  const reads = columns.map((c, i) => `cells[${i}] = row[${JSON.stringify(c.name)}];`);
  return new Function('row', 'cells', reads.join('\n')) as (row: ParquetRow, cells: unknown[]) => void;
}

/** Where a column's cells go as rows come: its text leaves, or an array the library's writer takes. */
interface ColumnSink {
  column: ParquetColumn;
  list: boolean;
  nullable: boolean;
  /** A struct list's fields, else null. */
  fields: readonly string[] | null;
  text: TextLeaf[];
  /** A flat double, boolean or timestamp column. */
  value: ValueLeaf | null;
  /** Anything else (ints, bigints, JSON): the library writes it, from this row group's cells. */
  other: { leaf: Leaf; cells: unknown[] } | null;
}

const VALUE_KINDS: Partial<Record<ParquetColumnType, ValueKind>> = { double: 'double', bool: 'bool', timestamp: 'timestamp' };

/** A double, boolean or timestamp cell as the number a ValueLeaf takes (1 or 0, milliseconds), or null. */
function valueCell(c: ParquetColumn, value: unknown): number | null {
  if (value === undefined || value === null) {
    if (c.nullable === false) throw missing(c);
    return null;
  }
  if (c.type === 'bool') return value ? 1 : 0;
  if (c.type === 'double') return Number(value);
  const ms = value instanceof Date ? value.getTime() : Math.trunc(Number(value));
  if (!Number.isFinite(ms)) throw new AppError('Invalid', `parquet column ${c.name}: ${String(value)} is not a time`);
  return ms;
}

/** A text or list cell into its column's leaves: a string as it is, anything else as String() gives it. */
function addText(s: ColumnSink, v: unknown): void {
  if (v === undefined || v === null) {
    if (!s.nullable) throw missing(s.column);
    for (const l of s.text) l.add(null, 0, 0);
  } else if (s.list) {
    addList(s.text, s.column.name, v as unknown[], s.nullable, s.fields);
  } else {
    s.text[0]!.add(typeof v === 'string' ? v : String(v), 1, 0);
  }
}

export class ParquetTable {
  private readonly writer: ParquetWriter;
  private readonly out: HashingFileWriter;
  private readonly sinks: ColumnSink[];
  private readonly rowGroupRows: number;
  private readonly partial: string;
  private readonly scratch = new PageBuffer();
  /** The row group's strings, numbered once for all its dictionary columns. */
  private readonly ids = new StringIds();
  private readonly read: (row: ParquetRow, cells: unknown[]) => void;
  /** The cells of the row being appended (one array for all rows). */
  private readonly cells: unknown[];
  private pending = 0;
  private rows = 0;
  private closed = false;
  private written: WrittenParquet | null = null;

  constructor(
    readonly file: string,
    private readonly columns: readonly ParquetColumn[],
    opts: ParquetTableOptions = {},
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.partial = `${file}.partial`;
    this.rowGroupRows = opts.rowGroupRows ?? DEFAULT_ROW_GROUP;
    const kvMetadata = Object.entries(opts.metadata ?? {}).map(([key, value]) => ({ key, value }));
    const schema = parquetSchema(columns);
    this.read = cellReader(columns);
    this.cells = columns.map(() => null);
    this.out = new HashingFileWriter(this.partial);
    this.writer = new ParquetWriter({
      writer: this.out,
      schema,
      kvMetadata,
      createdBy: 'reflection-workbench',
      // hysnappy (snappy in WebAssembly, by hyparquet's authors): about 450 MB/s against snappyjs's
      // 70-130 on the export's pages, a seventh of the export's CPU. One per table: its hash table lives
      // on between calls, so a page's bytes depend on the pages compressed before it in the same
      // compressor; one per file keeps a file's bytes a function of its own pages.
      compressors: { SNAPPY: snappyCompressor() },
    });
    const leaves = leavesOf(columns, schema, this.writer.compressors);
    this.sinks = columns.map((column, i) => {
      const ls = leaves[i]!;
      const list = column.type === 'string-list' || column.type === 'struct-list';
      const text = ls.every((l) => l.text);
      const kind = list ? undefined : VALUE_KINDS[column.type];
      return {
        column,
        list,
        nullable: column.nullable !== false,
        fields: column.type === 'struct-list' ? (column.fields ?? []) : null,
        text: text ? ls.map((l) => new TextLeaf(l, this.ids)) : [],
        value: kind ? new ValueLeaf(ls[0]!, kind) : null,
        other: text || kind ? null : { leaf: ls[0]!, cells: [] },
      };
    });
  }

  append(row: ParquetRow): void {
    if (this.closed) throw new AppError('Internal', `${this.file} is already closed`);
    const cells = this.cells;
    this.read(row, cells);
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) {
      const s = sinks[i]!;
      if (s.value) s.value.add(valueCell(s.column, cells[i]));
      else if (s.other) s.other.cells.push(cell(s.column, cells[i]));
      else addText(s, cells[i]);
    }
    this.rows++;
    if (++this.pending >= this.rowGroupRows) this.flush();
  }

  get rowCount(): number {
    return this.rows;
  }

  /**
   * One row group: each column shredded for its fixed shape and written leaf by leaf, then recorded
   * in the library's writer, whose finish() writes the page indexes and the footer as for its own groups.
   */
  private flush(): void {
    const n = this.pending;
    if (!n) return;
    const out = this.writer.writer;
    const groupStart = out.offset;
    const chunks: ColumnChunk[] = [];
    let bytes = 0n;
    for (const s of this.sinks) {
      const written = s.value
        ? [s.value.write(out, this.scratch)]
        : s.other
          ? [writeLibraryChunk(out, s.other.leaf, s.other.cells)]
          : s.text.map((t) => t.write(out, this.scratch));
      if (s.other) s.other.cells = [];
      for (const w of written) {
        chunks.push(w.chunk);
        bytes += w.chunk.meta_data?.total_uncompressed_size ?? 0n;
        this.writer.pendingIndexes.push(w);
      }
    }
    this.writer.num_rows += BigInt(n);
    this.writer.row_groups.push({
      columns: chunks,
      total_byte_size: bytes,
      num_rows: BigInt(n),
      total_compressed_size: BigInt(out.offset - groupStart),
    });
    this.ids.clear();
    this.pending = 0;
  }

  /** Writes the last row group and the footer, then moves the file into place. */
  close(): WrittenParquet {
    if (this.written) return this.written;
    this.flush();
    this.writer.finish();
    this.closed = true;
    fs.renameSync(this.partial, this.file);
    this.written = { file: this.file, rows: this.rows, ...this.out.digest() };
    return this.written;
  }

  /** Drops a table that failed midway: no partial file is left behind. */
  abort(): void {
    this.closed = true;
    this.out.close();
    fs.rmSync(this.partial, { force: true });
  }
}

/**
 * A split's Parquet file in a dataset export, with the same surface as the export's text sinks:
 * rows are appended as they come, the file exists only once closed, and an unused sink leaves nothing.
 */
export class ParquetSink {
  private table: ParquetTable | null = null;
  records = 0;

  constructor(
    readonly finalPath: string,
    private readonly columns: readonly ParquetColumn[],
    private readonly metadata: Record<string, string> = {},
  ) {}

  /** One row, encoded into its columns at once (a row held until later is copied by every scavenge meanwhile). */
  append(row: ParquetRow): void {
    this.opened().append(row);
  }

  async close(): Promise<{ name: string; path: string; bytes: number; sha256: string; records: number }> {
    const { bytes, sha256 } = this.opened().close();
    return { name: path.basename(this.finalPath), path: this.finalPath, bytes, sha256, records: this.records };
  }

  abort(): void {
    this.table?.abort();
  }

  /** The table, made on first use (an empty split still gets a valid file at close). */
  private opened(): ParquetTable {
    return (this.table ??= new ParquetTable(this.finalPath, this.columns, { metadata: this.metadata }));
  }
}
