// SHA-256 of a short string, for sample ids (store.ts). node:crypto's hash() costs a native call and a new
// Buffer per id, about 5 µs a sample inside a collection (profile at 20,000 decisions); the ids hash one
// 64-byte block each, which plain arithmetic does in well under a microsecond. The digest is SHA-256's
// (FIPS 180-4): tests/dataset/sha256.test.ts compares it with node:crypto's.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const encoder = new TextEncoder();
const W = new Int32Array(64);
const H = new Int32Array(8);
let input = new Uint8Array(256);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** One 64-byte block at `at` of `input` into H. */
function block(at: number): void {
  for (let i = 0; i < 16; i++) {
    const o = at + 4 * i;
    W[i] = (input[o]! << 24) | (input[o + 1]! << 16) | (input[o + 2]! << 8) | input[o + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15]!;
    const b = W[i - 2]!;
    W[i] = (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + W[i - 16]! + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10)) + W[i - 7]!;
  }
  let a = H[0]!, b = H[1]!, c = H[2]!, d = H[3]!, e = H[4]!, f = H[5]!, g = H[6]!, h = H[7]!;
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  // an Int32Array stores each sum modulo 2^32
  H[0] = H[0]! + a;
  H[1] = H[1]! + b;
  H[2] = H[2]! + c;
  H[3] = H[3]! + d;
  H[4] = H[4]! + e;
  H[5] = H[5]! + f;
  H[6] = H[6]! + g;
  H[7] = H[7]! + h;
}

/** The SHA-256 digest of the text's UTF-8 bytes, written into `out` (32 bytes); returns out. */
export function sha256Into(text: string, out: Uint8Array): Uint8Array {
  // UTF-8 takes at most 3 bytes a UTF-16 code unit; padding adds 9 to 72
  if (input.length < text.length * 3 + 72) input = new Uint8Array(text.length * 3 + 72);
  const len = encoder.encodeInto(text, input).written;
  const total = (len + 9 + 63) & ~63;
  input.fill(0, len, total);
  input[len] = 0x80;
  // the length in bits, big-endian, in the last 8 bytes (the high 3 bytes stay 0 for any string here)
  const bits = len * 8;
  input[total - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  input[total - 4] = bits >>> 24;
  input[total - 3] = bits >>> 16;
  input[total - 2] = bits >>> 8;
  input[total - 1] = bits;
  H.set(H0);
  for (let at = 0; at < total; at += 64) block(at);
  for (let i = 0; i < 8; i++) {
    const v = H[i]!;
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = v >>> 16;
    out[4 * i + 2] = v >>> 8;
    out[4 * i + 3] = v;
  }
  return out;
}
