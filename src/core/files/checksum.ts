import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** Size and SHA-256 of a file, read in 1 MB chunks so a large export never sits in memory whole. */
export function fileSha256(file: string): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = fs.openSync(file, 'r');
  let bytes = 0;
  try {
    for (let n = fs.readSync(fd, buf, 0, buf.length, null); n > 0; n = fs.readSync(fd, buf, 0, buf.length, null)) {
      hash.update(buf.subarray(0, n));
      bytes += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}
