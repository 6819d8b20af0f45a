-- Issue 16: a collection that loads many samples at once sets aside the secondary indexes whose keys are
-- random with respect to the order rows are stored in (the cluster, session, quality and correction
-- indexes), and builds them again from the loaded rows at its end: kept up row by row, each transaction
-- dirtied a page of them per sample and the WAL took those pages again at every commit (at 300,000
-- decisions the cluster index's pages alone were written about 14 times over). An index is dropped and
-- its CREATE statement recorded here in one transaction, so a crash before the rebuild leaves a record
-- that the next collection, or the next time the workspace is opened, acts on (deferredIndexes.ts).
CREATE TABLE deferred_indexes (
  name TEXT PRIMARY KEY,
  sql  TEXT NOT NULL
) STRICT;
