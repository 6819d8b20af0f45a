// Bulk-work connection settings (src/core/db/bulk.ts): set for the duration, shared by nested calls,
// restored by the outermost one, even when the work throws.
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { withBulkCheckpoints, withoutMmap } from '../../src/core/db/bulk';
import { tempWorkspace } from '../helpers/workspace';

describe('bulk settings', () => {
  it('a larger WAL and no memory map while bulk work runs, the previous values after', async () => {
    const { db } = openWorkspaceDatabase(tempWorkspace());
    const mmap = db.pragma('mmap_size', { simple: true }) as number;
    const ckpt = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    expect(mmap).toBeGreaterThan(0);
    expect(ckpt).toBe(1000);
    const seen: number[][] = [];
    const probe = () =>
      seen.push([db.pragma('mmap_size', { simple: true }) as number, db.pragma('wal_autocheckpoint', { simple: true }) as number]);
    await withoutMmap(db, () =>
      withBulkCheckpoints(db, async () => {
        probe();
        await withBulkCheckpoints(db, async () => probe());
        probe(); // the inner call ended: still the outer one's settings
      }),
    );
    expect(seen).toEqual([
      [0, 65_536],
      [0, 65_536],
      [0, 65_536],
    ]);
    expect(db.pragma('mmap_size', { simple: true })).toBe(mmap);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(ckpt);
    await expect(
      withBulkCheckpoints(db, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(ckpt);
    db.close();
  });
});
