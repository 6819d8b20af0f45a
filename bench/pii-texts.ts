// The texts dataset collection hands the PII detector: every scanned text field of the samples stored in a
// collected workspace, in collection order, repeats included (the per-run cache sees them as they come).
import type { DB } from '../src/core/db/connection';
import { forEachScannedText } from '../src/core/dataset/privacy';

export function collectionTexts(db: DB): string[] {
  const texts: string[] = [];
  for (const row of db.prepare('SELECT content FROM dataset_samples ORDER BY rowid').iterate() as Iterable<{ content: string }>) {
    forEachScannedText(JSON.parse(row.content), (_field, _text, probe) => texts.push(probe));
  }
  return texts;
}
