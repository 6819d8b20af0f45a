// Snappy compression for the Parquet writer: the same algorithm as hyparquet-writer's built-in one
// (itself snappyjs, MIT, Zhipeng Jia), so it writes the same bytes, but into one buffer sized for the
// worst case instead of a growing writer that checks its capacity and goes through a DataView for
// every byte. Compression was a sixth of the writer's time.

const MAX_HASH_TABLE_BITS = 14;
const MAX_OFFSET = 0xffff;
const INPUT_MARGIN = 15;
const hashTables: (Uint32Array | undefined)[] = [];

const hashOf = (key: number, shift: number): number => Math.imul(key, 0x1e35a7bd) >>> shift;

const load32 = (a: Uint8Array, p: number): number => a[p]! + (a[p + 1]! << 8) + (a[p + 2]! << 16) + (a[p + 3]! << 24);

const equals32 = (a: Uint8Array, p: number, q: number): boolean =>
  a[p] === a[q] && a[p + 1] === a[q + 1] && a[p + 2] === a[q + 2] && a[p + 3] === a[q + 3];

/** Output with its write position; every emit below returns the new position. */
interface Out {
  buf: Uint8Array;
  pos: number;
}

function emitLiteral(out: Out, input: Uint8Array, ip: number, len: number): void {
  const { buf } = out;
  let p = out.pos;
  if (len <= 60) {
    buf[p++] = (len - 1) << 2;
  } else {
    const value = len - 1;
    const bytes = value < 0x100 ? 1 : value < 0x10000 ? 2 : value < 0x1000000 ? 3 : 4;
    buf[p++] = (59 + bytes) << 2;
    for (let i = 0; i < bytes; i++) buf[p++] = (value >>> (i * 8)) & 0xff;
  }
  if (len < 32) {
    for (let i = 0; i < len; i++) buf[p + i] = input[ip + i]!;
  } else {
    buf.set(input.subarray(ip, ip + len), p);
  }
  out.pos = p + len;
}

function emitCopyLessThan64(out: Out, offset: number, len: number): void {
  const { buf } = out;
  let p = out.pos;
  if (len < 12 && offset < 2048) {
    buf[p++] = (1 + ((len - 4) << 2) + ((offset >>> 8) << 5)) & 0xff;
    buf[p++] = offset & 0xff;
  } else {
    buf[p++] = (2 + ((len - 1) << 2)) & 0xff;
    buf[p++] = offset & 0xff;
    buf[p++] = (offset >>> 8) & 0xff;
  }
  out.pos = p;
}

function emitCopy(out: Out, offset: number, len: number): void {
  while (len >= 68) {
    emitCopyLessThan64(out, offset, 64);
    len -= 64;
  }
  if (len > 64) {
    emitCopyLessThan64(out, offset, 60);
    len -= 60;
  }
  emitCopyLessThan64(out, offset, len);
}

function tableFor(inputSize: number): { table: Uint32Array; shift: number } {
  let bits = 1;
  while (1 << bits <= inputSize && bits <= MAX_HASH_TABLE_BITS) bits++;
  bits--;
  const table = (hashTables[bits] ??= new Uint32Array(1 << bits));
  table.fill(0);
  return { table, shift: 32 - bits };
}

/** The matching loop, step for step as in snappyjs (so the output is byte-identical). */
function compressBody(out: Out, input: Uint8Array): void {
  const ipEnd = input.length;
  let nextEmit = 0;
  if (ipEnd >= INPUT_MARGIN) {
    const { table, shift } = tableFor(ipEnd);
    const ipLimit = ipEnd - INPUT_MARGIN;
    let ip = 1;
    let nextHash = hashOf(load32(input, ip), shift);
    for (;;) {
      let skip = 32;
      let nextIp = ip;
      let candidate = 0;
      let done = false;
      do {
        ip = nextIp;
        const hash = nextHash;
        const step = skip >>> 5;
        skip++;
        nextIp = ip + step;
        if (ip > ipLimit) {
          done = true;
          break;
        }
        nextHash = hashOf(load32(input, nextIp), shift);
        candidate = table[hash]!;
        table[hash] = ip;
      } while (ip - candidate > MAX_OFFSET || !equals32(input, ip, candidate));
      if (done) break;
      emitLiteral(out, input, nextEmit, ip - nextEmit);
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched < ipEnd && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        emitCopy(out, base - candidate, matched);
        nextEmit = ip;
        if (ip >= ipLimit) {
          done = true;
          break;
        }
        table[hashOf(load32(input, ip - 1), shift)] = ip - 1;
        const cur = hashOf(load32(input, ip), shift);
        candidate = table[cur]!;
        table[cur] = ip;
      } while (ip - candidate <= MAX_OFFSET && equals32(input, ip, candidate));
      if (done) break;
      ip++;
      nextHash = hashOf(load32(input, ip), shift);
    }
  }
  if (nextEmit < ipEnd) emitLiteral(out, input, nextEmit, ipEnd - nextEmit);
}

/** Snappy-compressed bytes of input (a view of a buffer of the worst-case size). */
export function snappyCompress(input: Uint8Array): Uint8Array {
  // snappy's bound: 32 + n + n/6, plus the varint length in front
  const out: Out = { buf: new Uint8Array(40 + input.length + Math.ceil(input.length / 6)), pos: 0 };
  let n = input.length;
  while (n & ~0x7f) {
    out.buf[out.pos++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out.buf[out.pos++] = n;
  compressBody(out, input);
  return out.buf.subarray(0, out.pos);
}
