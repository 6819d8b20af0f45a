// Memory health: blame, contradictions and duplicates, secrets in memory, erasure, tamper evidence.
export { blameFile, ensureLineMaps, type BlameInput, type BlameResult } from './blame';
export { comparePair, findConflicts, type ConflictGroup, type PairVerdict } from './conflicts';
export { eraseValue, listErasures, ERASED_MARK, type EraseInput, type ErasePlace, type EraseResult } from './erase';
export {
  getFinding,
  listFindings,
  scanMemoryHealth,
  type Finding,
  type FindingKind,
  type FindingStatus,
  type ScanResult,
} from './findings';
export { removeSecretsOfWrite, resolveFinding, REMOVED_MARK, type FileChange, type ResolveInput } from './resolve';
export { secondOpinionConfig, secondOpinions } from './secondOpinion';
export { flagNewWrites, flagsForAudits, flaggedWriteCount, rescanAllWrites, type WriteFlag } from './secrets';
export { syncVersions } from './versions';
export { verifyChains, type ChainBreak, type VerifyResult } from './verify';
export { healthSummary, type HealthSummary } from './summary';
