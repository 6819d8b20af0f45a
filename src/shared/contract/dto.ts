// Output types of the API contract: plain, JSON-serializable data (no Dates, no class instances),
// so the same value crosses Electron IPC (structured clone) and browser-mode HTTP (JSON) unchanged.
// Times are epoch milliseconds. Pure TypeScript: no node or electron imports.
import type {
  AnnotationStatus,
  ExportFormat,
  SampleType,
} from '../domain';
import type { AuditRow, ContextItemDto, GateDecisionRow, TurnDto } from './records';

export type { Page } from '../paging';


