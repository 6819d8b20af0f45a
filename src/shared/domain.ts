// Domain vocabulary shared by main, CLI and renderer. Pure TypeScript: no node or electron imports.

export const MEMORY_FILES = ['MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md'] as const;
export type MemoryFileName = (typeof MEMORY_FILES)[number];

export const GATE_DECISIONS = ['NO_WRITE', 'UPDATE_MEMORY', 'UPDATE_USER', 'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS'] as const;
export type GateDecision = (typeof GATE_DECISIONS)[number];

/** The memory file a gate decision targets; NO_WRITE targets none. */
export function fileForDecision(decision: GateDecision): MemoryFileName | null {
  switch (decision) {
    case 'UPDATE_MEMORY':
      return 'MEMORY.md';
    case 'UPDATE_USER':
      return 'USER.md';
    case 'UPDATE_SOUL':
      return 'SOUL.md';
    case 'UPDATE_IDENTITY':
      return 'IDENTITY.md';
    case 'UPDATE_TOOLS':
      return 'TOOLS.md';
    default:
      return null;
  }
}

export function decisionForFile(file: MemoryFileName): GateDecision {
  return `UPDATE_${file.replace('.md', '')}` as GateDecision;
}

export const AUDIT_STATUSES = ['written', 'refused', 'failed', 'skipped', 'rolled_back'] as const;
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

export const AUDIT_SOURCES = ['plugin', 'external', 'rollback', 'retry', 'consolidation'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

export const SAMPLE_TYPES = ['memory_gate_positive', 'memory_gate_negative', 'write_guardian_decision', 'annotated_turn'] as const;
export type SampleType = (typeof SAMPLE_TYPES)[number];

export const ANNOTATION_STATUSES = ['pending', 'approved', 'rejected', 'needs_review', 'auto_approved'] as const;
export type AnnotationStatus = (typeof ANNOTATION_STATUSES)[number];

export const EXPORT_FORMATS = ['alpaca', 'sharegpt', 'openai', 'openai-dpo', 'ranking', 'kto', 'parquet', 'raw', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** Which half of an export a sample (or a whole session) goes to. */
export type DataSplit = 'train' | 'validation';

export type Role = 'user' | 'agent';

export interface SessionRecord {
  id: string;
  channelId: string;
  conversationTarget?: string;
  accountId?: string;
  createdAt: number;
  lastActivityAt: number;
  metadata?: Record<string, unknown>;
}

export interface ConversationTurn {
  id: string;
  sessionId: string;
  turnNumber: number;
  userMessage: { id?: string; content: string; from?: string; metadata?: Record<string, unknown> };
  agentReply: { id?: string; content: string; metadata?: Record<string, unknown> };
  createdAt: number;
}

export interface ConversationContextItem {
  id: number;
  turnId: string;
  role: Role;
  message: string;
  timestamp: number;
  sequenceNumber: number;
}

export interface MemoryGateDecisionRecord {
  id: string;
  turnId: string;
  sessionId: string;
  decision: GateDecision;
  reason: string;
  candidateFact?: string;
  llmCall: {
    model: string;
    latencyMs?: number;
    promptTokens?: number;
    completionTokens?: number;
    rawResponse?: string;
  };
  source?: string;
  createdAt: number;
}

export interface FileSnapshot {
  id: string;
  fileName: MemoryFileName;
  content: string;
  contentHash: string;
  createdAt: number;
}

export interface LineChanges {
  added: number;
  removed: number;
  modified: number;
}

export interface WriteGuardianAuditRecord {
  id: string;
  decisionId?: string;
  turnId?: string;
  sessionId?: string;
  targetFile: MemoryFileName;
  candidateFact?: string;
  fileChange: {
    beforeSnapshotId?: string;
    afterSnapshotId?: string;
    diff?: string;
    lineChanges?: LineChanges;
  };
  status: AuditStatus;
  reason?: string;
  llmCall?: { model?: string; latencyMs?: number; agentSteps?: number };
  source: AuditSource;
  relatedAuditId?: string;
  metadata?: Record<string, unknown>;
  createdAt: number;
}
