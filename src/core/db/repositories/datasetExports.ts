// Recorded dataset exports (dataset_exports): the row an export writes, the list the Export view shows,
// one export, and the files an export wrote (what download and drag-out may hand out).
import type { ExportFormat } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface DatasetExportRow {
  id: string;
  export_name: string;
  export_format: ExportFormat;
  sample_types: string;
  total_samples: number | null;
  train_samples: number | null;
  validation_samples: number | null;
  avg_quality_score: number | null;
  include_pii: number;
  file_path: string;
  file_size_bytes: number | null;
  checksum: string | null;
  files: string | null;
  exported_by: string | null;
  exported_at: number;
  summary: string | null;
}

export interface ExportInsert {
  id: string;
  name: string;
  format: ExportFormat;
  types: string;
  filters: string;
  total: number;
  approved: number;
  train: number;
  validation: number;
  avg: number | null;
  pii: number;
  path: string;
  size: number;
  checksum: string;
  files: string;
  by: string;
  at: number;
  summary: string;
}

export function insertDatasetExport(db: DB, x: ExportInsert): void {
  stmt(
    db,
    `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, filters, total_samples, approved_samples,
      rejected_samples, train_samples, validation_samples, avg_quality_score, include_pii, file_path, file_size_bytes,
      checksum, files, exported_by, exported_at, summary)
     VALUES (@id, @name, @format, @types, @filters, @total, @approved, 0, @train, @validation, @avg, @pii, @path, @size,
      @checksum, @files, @by, @at, @summary)`,
  ).run(x);
}

const EXPORT_COLUMNS = `id, export_name, export_format, sample_types, total_samples, train_samples, validation_samples, avg_quality_score,
  include_pii, file_path, file_size_bytes, checksum, files, exported_by, exported_at, summary`;

export function findDatasetExport(db: DB, id: string): DatasetExportRow | undefined {
  return stmt<DatasetExportRow>(db, `SELECT ${EXPORT_COLUMNS} FROM dataset_exports WHERE id = ?`).get(id);
}

/** Newest first. */
export function listDatasetExports(db: DB, limit: number): DatasetExportRow[] {
  return stmt<DatasetExportRow>(db, `SELECT ${EXPORT_COLUMNS} FROM dataset_exports ORDER BY exported_at DESC LIMIT ?`).all(limit);
}

/** Where the export was written and the files it lists (JSON), or undefined for an unknown export. */
export function findDatasetExportFiles(db: DB, id: string): { file_path: string; files: string | null } | undefined {
  return stmt<{ file_path: string; files: string | null }>(db, 'SELECT file_path, files FROM dataset_exports WHERE id = ?').get(id);
}

/** Where every dataset export was written, as recorded. */
export function listDatasetExportPaths(db: DB): string[] {
  return stmt(db, 'SELECT file_path FROM dataset_exports').pluck().all() as string[];
}
