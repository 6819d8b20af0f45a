// Drag-out and download may only hand out files the workbench itself wrote: a file listed in a
// dataset_exports row, inside that export's folder, still a regular file (no symlink escape).
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../shared/errors';
import type { DB } from '../core/db/connection';
import { findDatasetExportFiles } from '../core/db/repositories/datasetExports';

function listedNames(files: string | null): string[] {
  if (!files) return [];
  try {
    const parsed = JSON.parse(files) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed
      .map((f) =>
        typeof f === 'string'
          ? f
          : ((f as { name?: unknown; path?: unknown; file?: unknown })?.name ??
            (f as { path?: unknown }).path ??
            (f as { file?: unknown }).file),
      )
      .filter((n): n is string => typeof n === 'string')
      .map((n) => path.basename(n));
  } catch {
    return [];
  }
}

/** The absolute path of one file of an export, or NotFound / Invalid. */
export function resolveExportFile(db: DB, workspaceDir: string, exportId: string, fileName: string): string {
  if (fileName !== path.basename(fileName) || fileName === '.' || fileName === '..') {
    throw new AppError('Invalid', `fileName: ${fileName} must be a plain file name`);
  }
  const row = findDatasetExportFiles(db, exportId);
  if (!row) throw new AppError('NotFound', `export ${exportId} not found`);
  const recorded = path.resolve(workspaceDir, row.file_path);
  const isDir = fs.existsSync(recorded) && fs.statSync(recorded).isDirectory();
  const folder = isDir ? recorded : path.dirname(recorded);
  const names = new Set(listedNames(row.files));
  if (!isDir) names.add(path.basename(recorded));
  if (!names.has(fileName)) throw new AppError('NotFound', `${fileName} is not a file of export ${exportId}`);
  const file = path.join(folder, fileName);
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    throw new AppError('NotFound', `${fileName} of export ${exportId} no longer exists`);
  }
  if (path.dirname(real) !== fs.realpathSync(folder) || !fs.statSync(real).isFile()) {
    throw new AppError('Invalid', `${fileName} of export ${exportId} is not a regular file inside the export folder`);
  }
  return real;
}

/**
 * The name a downloaded file should get: the export's recorded download name
 * (<workspace>-<format>-<date>.<split>.<ext>) when it has one, else the file's own name.
 */
export function downloadNameOf(db: DB, exportId: string, fileName: string): string {
  const row = findDatasetExportFiles(db, exportId);
  try {
    const files = JSON.parse(row?.files ?? '[]') as { name?: unknown; downloadName?: unknown }[];
    const hit = files.find((f) => f?.name === fileName);
    if (typeof hit?.downloadName === 'string' && hit.downloadName) return path.basename(hit.downloadName);
  } catch {
    // an unreadable list falls back to the file's own name
  }
  return fileName;
}
