// Parquet's RLE/bit-packing hybrid (levels and dictionary indexes), byte for byte as hyparquet-writer's
// writeRleBitPackedHybrid writes it: the same runs of 8 or more equal values, the same groups of 8
// bit-packed values in between. The library appends every byte through ByteWriter.appendUint8 (a bounds
// check and a DataView store each); here bytes go into a plain array sized once per call. It was about a
// tenth of the Parquet writer's time, most of it in the dictionary index pages.

/** A growable byte array, reused from page to page. */
export class Bytes {
  buf = new Uint8Array(1 << 12);
  n = 0;

  ensure(bytes: number): void {
    if (this.n + bytes <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + bytes));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }

  /** The bytes written since `from`. */
  view(from = 0): Uint8Array {
    return this.buf.subarray(from, this.n);
  }
}

function putVarInt(out: Bytes, value: number): void {
  const buf = out.buf;
  while (value & ~0x7f) {
    buf[out.n++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[out.n++] = value;
}

/** A run: its length (shifted, low bit 0), then the value in whole bytes. */
function putRun(out: Bytes, value: number, count: number, bitWidth: number): void {
  const width = (bitWidth + 7) >> 3;
  out.ensure(5 + width);
  putVarInt(out, count << 1);
  for (let j = 0; j < width; j++) out.buf[out.n++] = (value >> (j << 3)) & 0xff;
}

/** `groups` groups of 8 values from `start` (past the end: zeros), bit-packed low bits first. */
function putGroups(out: Bytes, values: ArrayLike<number>, start: number, groups: number, bitWidth: number): void {
  out.ensure(5 + groups * bitWidth);
  putVarInt(out, (groups << 1) | 1);
  if (bitWidth === 0) return;
  const buf = out.buf;
  const mask = (1 << bitWidth) - 1;
  const end = start + groups * 8;
  const present = Math.min(end, values.length);
  let acc = 0;
  let bits = 0;
  for (let i = start; i < end; i++) {
    acc |= (i < present ? values[i]! & mask : 0) << bits;
    bits += bitWidth;
    while (bits >= 8) {
      buf[out.n++] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) buf[out.n++] = acc & 0xff;
}

/** Appends `values` RLE/bit-packed at `bitWidth` and returns the bytes written. */
export function putRleBitPacked(out: Bytes, values: ArrayLike<number>, bitWidth: number): number {
  const from = out.n;
  const n = values.length;
  let groups = 0;
  let groupStart = 0;
  let i = 0;
  while (i < n) {
    const first = values[i]!;
    let run = 1;
    while (i + run < n && values[i + run] === first) run++;
    if (run >= 8) {
      if (groups) {
        putGroups(out, values, groupStart, groups, bitWidth);
        groups = 0;
      }
      putRun(out, first, run, bitWidth);
      i += run;
    } else {
      if (!groups) groupStart = i;
      groups++;
      i += 8;
    }
  }
  if (groups) putGroups(out, values, groupStart, groups, bitWidth);
  return out.n - from;
}
