// What a call changes and what a query reads, by data area. A change event names the areas (and ids)
// that changed, so the renderer reloads only the queries that read one of them. Channels missing from
// these maps are treated conservatively: an unknown mutation changes every area, an unknown query
// reads every area. A dry run (input.dryRun === true) is a read: it changes nothing and announces nothing.
import type { Channel } from './index';

export const DATA_AREAS = [
  'sessions',
  'decisions',
  'writes',
  'samples',
  'exports',
  'settings',
  'exclusions',
  'workspace',
  'health',
] as const;
export type DataArea = (typeof DATA_AREAS)[number];

/** What one event says changed; `ids` lists the rows touched when main knows them all. */
export interface DataChange {
  areas: DataArea[];
  ids?: string[];
}

const RECORDED: DataArea[] = ['sessions', 'decisions', 'writes', 'samples'];

/** Areas each mutating channel changes. */
export const CHANNEL_CHANGES: Partial<Record<Channel, DataArea[]>> = {
  'workspace.open': [...DATA_AREAS],
  'guardian.rollback': ['writes'],
  'guardian.rollbackSession': ['writes'],
  'guardian.retry': ['writes'],
  'guardian.correct': ['writes'],
  'dataset.review': ['samples'],
  'dataset.undo': ['samples'],
  'dataset.setPiiSpanDecision': ['samples'],
  'dataset.collect': ['samples'],
  'dataset.export': ['exports'],
  'import.reflectionLogs': RECORDED,
  'import.openclaw': RECORDED,
  'import.evals': ['samples'],
  'jobs.cancel': [],
  'settings.set': ['settings'],
  'backup.create': [],
  'exports.startDrag': [],
  'exclusions.add': ['exclusions', 'sessions', 'samples'],
  'exclusions.remove': ['exclusions', 'sessions', 'samples'],
  'exclusions.purge': ['exclusions', ...RECORDED],
  'retention.prune': RECORDED,
  'conversations.export': ['exports'],
  'dataset.pickRepresentative': ['samples'],
  'dataset.markMissedWrite': ['samples'],
  'import.dailyNotes': RECORDED,
  // Holding or releasing samples changes what other curators are served next, not what anyone's view
  // shows; announcing it would make the queue that reserved them reload and reserve again.
  'review.reserve': [],
  'review.release': [],
  'review.bulk': ['samples'],
  'review.adjudicate': ['samples'],
  'review.startSecondPass': ['samples'],
  'review.setGuidelines': ['settings'],
  'review.setSettings': ['settings'],
  'pii.decideValue': ['samples'],
  'pii.undoValueDecision': ['samples'],
  'curators.setLocalName': ['workspace'],
  'health.scan': ['health'],
  'health.resolve': ['health', 'writes'],
  'health.removeSecrets': ['health', 'writes'],
  'health.erase': ['health', 'writes', ...RECORDED],
  'health.secondOpinion': ['health'],
};

/** Areas each query reads (a list that shows a write's outcome reads 'writes' too). */
export const QUERY_READS: Partial<Record<Channel, DataArea[]>> = {
  'app.info': ['workspace'],
  'workspace.current': ['workspace', ...RECORDED],
  'workspace.recent': ['workspace'],
  'sessions.list': ['sessions', 'exclusions'],
  'sessions.get': ['sessions', 'decisions', 'writes', 'exclusions'],
  'turns.list': ['sessions', 'decisions', 'writes'],
  'turns.get': ['sessions', 'decisions', 'writes'],
  'context.get': ['sessions'],
  'search.query': ['sessions', 'decisions'],
  'gate.list': ['decisions', 'writes'],
  'gate.show': ['decisions', 'writes'],
  'gate.stats': ['decisions'],
  'guardian.list': ['writes'],
  'guardian.show': ['writes'],
  'guardian.stats': ['writes'],
  'guardian.diff': ['writes'],
  'guardian.history': ['writes'],
  'dataset.list': ['samples'],
  'dataset.get': ['samples'],
  'dataset.stats': ['samples'],
  'dataset.previewExport': ['samples', 'settings'],
  'dataset.exports': ['exports'],
  'jobs.get': [],
  'jobs.list': [],
  'settings.get': ['settings'],
  'settings.validate': ['settings'],
  'exclusions.list': ['exclusions', 'sessions'],
  'health.blame': ['writes'],
  'health.findings': ['health', 'writes'],
  'health.writeFlags': ['writes'],
  'health.summary': ['health', 'writes'],
  'health.verify': ['health', 'writes'],
  'dataset.writerQuality': ['samples', 'writes'],
  'dataset.cluster': ['samples'],
  'review.queue': ['samples', 'settings'],
  'review.history': ['samples'],
  'review.guidelines': ['settings'],
  'review.settings': ['settings'],
  'review.agreement': ['samples'],
  'pii.values': ['samples'],
  'pii.valueDecisions': ['samples'],
  'curators.me': ['workspace'],
  'curators.list': ['workspace'],
  'stats.evalModels': ['samples'],
  'notes.list': ['sessions'],
  'notes.search': ['sessions'],
  'dialog.pick': [],
};

/** What live capture, the archive schedule and retention change (the 'data' event's `source`). */
export const SOURCE_CHANGES: Record<'live-capture' | 'archive' | 'retention', DataArea[]> = {
  'live-capture': ['sessions', 'decisions', 'writes'],
  archive: ['exports'],
  retention: RECORDED,
};

export function isDryRun(input: unknown): boolean {
  return typeof input === 'object' && input !== null && (input as { dryRun?: unknown }).dryRun === true;
}

export function changedAreas(channel: string): DataArea[] {
  return CHANNEL_CHANGES[channel as Channel] ?? [...DATA_AREAS];
}

export function readAreas(channel: string): DataArea[] {
  return QUERY_READS[channel as Channel] ?? [...DATA_AREAS];
}

const ID_FIELDS = ['id', 'auditId', 'sampleId', 'reviewId', 'sessionId', 'rollbackAuditId'] as const;

/** The ids a call names in its input and output (top level only): enough to refresh one open detail. */
export function touchedIds(input: unknown, output: unknown): string[] {
  const ids = new Set<string>();
  for (const source of [input, output]) {
    if (typeof source !== 'object' || source === null) continue;
    for (const f of ID_FIELDS) {
      const v = (source as Record<string, unknown>)[f];
      if (typeof v === 'string' && v) ids.add(v);
    }
  }
  return [...ids];
}

/** The change a finished call announces, or null when it changed nothing (a dry run, a no-op channel). */
export function changeOf(channel: string, input: unknown, output: unknown): DataChange | null {
  if (isDryRun(input)) return null;
  const areas = changedAreas(channel);
  if (areas.length === 0) return null;
  return { areas, ids: touchedIds(input, output) };
}
