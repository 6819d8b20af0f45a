// Issue 16: collection maintains every index of the tables it writes. Each kept index is listed here
// with a query that needs it (EXPLAIN QUERY PLAN shows it used); migration 0170 dropped the ones no
// query used. A new index on these tables has to join this list with its query.
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { tempWorkspace } from '../helpers/workspace';

/** index -> a query that uses it (the app's own lookups, foreign-key checks of deletes, list filters). */
const KEPT: Record<string, Record<string, string>> = {
  dataset_samples: {
    idx_samples_type_status: "SELECT count(*) FROM dataset_samples WHERE sample_type = 'annotated_turn' AND annotation_status = 'pending'",
    idx_samples_status_created: "SELECT id FROM dataset_samples WHERE annotation_status = 'needs_review' ORDER BY created_at LIMIT 50",
    idx_samples_quality: 'SELECT id FROM dataset_samples WHERE quality_score >= 0.9',
    idx_samples_session: 'SELECT id FROM dataset_samples WHERE session_id = ?',
    idx_samples_created: 'SELECT id FROM dataset_samples WHERE created_at > ? ORDER BY created_at LIMIT 50',
    idx_samples_turn: 'SELECT id FROM dataset_samples WHERE turn_id = ?',
    idx_samples_decision: 'SELECT id FROM dataset_samples WHERE decision_id = ?',
    idx_samples_audit: 'SELECT id FROM dataset_samples WHERE audit_id = ?',
    idx_samples_type_created: "SELECT id FROM dataset_samples WHERE sample_type = 'annotated_turn' ORDER BY created_at DESC LIMIT 50",
    idx_samples_correction: 'SELECT id FROM dataset_samples WHERE correction_id = ?',
    // dedupe's exact lookup (findSampleByFingerprint): a prefix of the fingerprint since migration 0181, asked of
    // each generation since 0185
    idx_samples_fingerprint_gen:
      'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint_gen = ? AND substr(fingerprint, 1, 16) = substr(?, 1, 16) AND fingerprint = ?',
    idx_samples_cluster_filters: 'SELECT id FROM dataset_samples WHERE cluster_id = ?',
    // the export's session-wide value hiding: the spans of the few samples with PII in a page's sessions (0172)
    idx_samples_session_spans:
      'SELECT session_id, pii_spans FROM dataset_samples WHERE session_id IN (SELECT value FROM json_each(?)) AND pii_spans IS NOT NULL ORDER BY session_id, rowid',
    // the preference exports' plan (ranking, openai-dpo): the samples that hold a pair, from their own partial index (0183)
    idx_samples_pairs:
      "SELECT rowid, session_id, cluster_id FROM dataset_samples WHERE (sample_type = 'memory_gate_negative' OR correction_id IS NOT NULL) AND created_at > ? ORDER BY created_at",
    // the other exports' plan reads the cluster index; the samples corrected by their strategy alone come from here (0184)
    idx_samples_strategy_corrected:
      "SELECT rowid FROM dataset_samples WHERE correction_id IS NULL AND collection_strategy IN ('manual_correction', 'missed_write')",
  },
  dataset_feedback_signals: {
    idx_feedback_session_time: 'SELECT id FROM dataset_feedback_signals WHERE session_id = ? ORDER BY created_at',
  },
  dataset_lsh_bands: {},
  dataset_minhash: {
    // clustersAreStale, before every collection and export (migration 0177): a scan of every leader without it
    idx_minhash_without_unit: 'SELECT 1 FROM dataset_minhash WHERE unit IS NULL LIMIT 1',
  },
};

function indexesOf(db: DB, table: string): string[] {
  return db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
    .pluck()
    .all(table) as string[];
}

function plan(db: DB, sql: string): string {
  const params = (sql.match(/\?/g) ?? []).map(() => 'x');
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
}

describe('indexes of the tables collection writes', () => {
  it('are exactly the kept ones, and each is used by its query', () => {
    const { db } = openWorkspaceDatabase(tempWorkspace());
    try {
      for (const [table, kept] of Object.entries(KEPT)) {
        expect(indexesOf(db, table)).toEqual(Object.keys(kept).sort());
        for (const [index, sql] of Object.entries(kept)) expect(plan(db, sql), `${index}: ${sql}`).toContain(index);
      }
      // the dropped ones: their lookups still use an index
      expect(plan(db, 'SELECT id FROM dataset_samples WHERE cluster_id = ?')).toMatch(
        /USING (COVERING )?INDEX idx_samples_cluster_filters/,
      );
      expect(plan(db, "SELECT id FROM dataset_feedback_signals WHERE turn_id = ? AND type = 'reject'")).toMatch(
        /USING INDEX sqlite_autoindex_dataset_feedback_signals/,
      );
    } finally {
      db.close();
    }
  });

  it("reads a decision's following turns from the index, without sorting the rest of the session", () => {
    const { db } = openWorkspaceDatabase(tempWorkspace());
    try {
      // the query of listFollowingTurns (migration 0171), the per-decision form of the page statement below
      const following = plan(
        db,
        `SELECT id, user_message_content, created_at FROM conversation_turns
          WHERE session_id = ? AND (created_at, turn_number) > (?, ?) ORDER BY created_at, turn_number LIMIT ?`,
      );
      expect(following).toContain('idx_turns_session_created_number (session_id=? AND (created_at,turn_number)>(?,?))');
      expect(following).not.toContain('TEMP B-TREE');
      expect(indexesOf(db, 'conversation_turns')).not.toContain('idx_turns_session_created');
      // listFollowingTurnsOfDecisions: collection reads a group of decisions' following turns in one statement,
      // each decision's list from the same index range
      const page = plan(
        db,
        `SELECT p.key AS i, f.id, f.user_message_content, f.created_at, f.turn_number
          FROM json_each(?) AS p JOIN conversation_turns AS f ON f.seq IN (
            SELECT seq FROM conversation_turns
            WHERE session_id = p.value ->> 0 AND (created_at, turn_number) > (p.value ->> 1, p.value ->> 2)
            ORDER BY created_at, turn_number LIMIT ?)`,
      );
      expect(page).toContain('idx_turns_session_created_number (session_id=? AND (created_at,turn_number)>(?,?))');
      expect(page).not.toContain('TEMP B-TREE');
    } finally {
      db.close();
    }
  });
});
