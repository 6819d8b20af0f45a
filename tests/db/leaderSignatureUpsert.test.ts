// Issue 16: a leader's MinHash signature is stored with an upsert instead of INSERT OR REPLACE (cheaper:
// a REPLACE counts the foreign-key check and keeps a statement journal for it). The row must end the same
// either way, since dataset_minhash has one key and no other unique index or trigger, and a leader whose
// sample does not exist must still be refused.
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { upsertLeaderSignature } from '../../src/core/db/repositories/collectDedupe';
import { tempWorkspace } from '../helpers/workspace';

describe('upsertLeaderSignature', () => {
  it('stores a new leader, then replaces its whole row, as INSERT OR REPLACE did', () => {
    const { db } = openWorkspaceDatabase(tempWorkspace());
    try {
      db.pragma('foreign_keys = OFF'); // the row alone is under test: no sample to reference
      const rows = () => db.prepare('SELECT sample_id, cluster_id, signature, unit FROM dataset_minhash').all();
      upsertLeaderSignature(db, 's1', 'c1', Buffer.from([1, 2, 3]), 'u1');
      expect(rows()).toEqual([{ sample_id: 's1', cluster_id: 'c1', signature: Buffer.from([1, 2, 3]), unit: 'u1' }]);
      upsertLeaderSignature(db, 's1', 'c2', Buffer.from([4]), 'u2');
      expect(rows()).toEqual([{ sample_id: 's1', cluster_id: 'c2', signature: Buffer.from([4]), unit: 'u2' }]);
    } finally {
      db.close();
    }
  });

  it('refuses a leader whose sample does not exist', () => {
    const { db } = openWorkspaceDatabase(tempWorkspace());
    try {
      expect(() => upsertLeaderSignature(db, 'missing', 'c', Buffer.from([1]), 'u')).toThrow(/FOREIGN KEY/);
      expect(db.prepare('SELECT count(*) FROM dataset_minhash').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});
