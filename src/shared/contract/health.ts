// Memory health: blame, the findings queue (contradictions, duplicates, secrets), secret removal,
// erasure across history and hash-chain verification. Pure TS + zod.
import { z } from 'zod';
import { MEMORY_FILES } from '../domain';
import { empty, id, mutation, query } from './define';

export interface BlameWriteDto {
  seq: number;
  auditId: string;
  source: string | null;
  status: string | null;
  decisionId: string | null;
  decision: string | null;
  turnId: string | null;
  sessionId: string | null;
  candidateFact: string | null;
  reason: string | null;
  createdAt: number;
}
export interface BlameLineDto {
  line: number;
  text: string;
  write: BlameWriteDto | null;
  history: Array<{ write: BlameWriteDto; text: string }>;
}
export interface BlameDto {
  fileName: string;
  versions: number;
  headSeq: number | null;
  diskDiffers: boolean;
  lines: BlameLineDto[];
}
export interface FindingLineDto {
  fileName: string;
  line: number;
  text: string;
  values?: string[];
}
export interface FindingDto {
  id: string;
  kind: 'contradiction' | 'duplicate' | 'secret';
  attribute: string | null;
  status: 'open' | 'resolved' | 'merged' | 'dismissed';
  detail: { lines: FindingLineDto[]; piiKind?: string; secret?: boolean; secondOpinion?: { verdict: string; reason: string; model: string } | { error: string } };
  resolution: Record<string, unknown> | null;
  resolvedBy: string | null;
  resolvedAt: number | null;
  createdAt: number;
}
export interface HealthScanDto {
  found: number;
  added: number;
  closed: number;
  open: FindingDto[];
}
export interface FileChangeDto {
  fileName: string;
  retryAuditId: string;
  correctionIds: string[];
}
export interface WriteFlagDto {
  auditId: string;
  kinds: string[];
  count: number;
}
export interface HealthSummaryDto {
  openFindings: { contradiction: number; duplicate: number; secret: number };
  flaggedWrites: number;
  flaggedSecretWrites: number;
  chain: { ok: boolean; breaks: number; versions: number; rechains: number; checkedAt: number };
}
export interface VerifyDto {
  ok: boolean;
  checkedAt: number;
  files: Array<{ fileName: string; versions: number; headLink: string | null; breaks: number }>;
  breaks: Array<{ kind: string; fileName: string; seq: number | null; auditId: string | null; message: string }>;
  chained: number;
  events: Array<{ fileName: string; fromSeq: number; reason: string; erasureId: string | null; createdAt: number }>;
}
export interface EraseDto {
  dryRun: boolean;
  erasureId: string | null;
  places: Array<{ place: string; kind: 'database' | 'memory_file' | 'archive' | 'export'; count: number; action: 'rewrite' | 'delete' | 'keep' }>;
  blocked: string[];
  rechained: string[];
  warnings: string[];
}

const memoryFile = z.enum(MEMORY_FILES);
const findingStatus = z.enum(['open', 'resolved', 'merged', 'dismissed']);

export const healthContracts = {
  'health.blame': query<BlameDto>()(
    z.strictObject({ file: memoryFile, line: z.number().int().min(1).optional(), seq: z.number().int().min(1).optional() }),
    'Which recorded write last produced each line of a memory file, with its decision, turn and earlier history',
  ),
  'health.scan': mutation<HealthScanDto>()(empty, 'Scan the current memory files for contradictions, duplicates and secrets; update the findings queue'),
  'health.findings': query<FindingDto[]>()(
    z.strictObject({ status: findingStatus.optional(), kind: z.enum(['contradiction', 'duplicate', 'secret']).optional() }),
    'The findings queue',
  ),
  'health.resolve': mutation<{ finding: FindingDto; changes: FileChangeDto[] }>()(
    z.strictObject({
      id,
      action: z.enum(['keep', 'merge', 'dismiss', 'remove']),
      keep: z.number().int().min(0).optional(),
      text: z.string().trim().min(1).max(5000).optional(),
      reason: z.string().trim().max(2000).optional(),
    }),
    'Resolve a finding: keep one line, merge, remove a secret (curator write + correction), or dismiss',
  ),
  'health.removeSecrets': mutation<FileChangeDto>()(
    z.strictObject({ auditId: id }),
    'Remove the secrets and personal data a write stored from its memory file (curator write + correction)',
  ),
  'health.writeFlags': query<WriteFlagDto[]>()(
    z.strictObject({ auditIds: z.array(id).max(1000) }),
    'Which of these writes stored secrets or personal data (kinds only, never values)',
  ),
  'health.summary': query<HealthSummaryDto>()(empty, 'Open findings, flagged writes and the hash chain state, for Stats'),
  'health.verify': query<VerifyDto>()(empty, 'Check the hash chain of every memory file version and the files on disk'),
  'health.erase': mutation<EraseDto>()(
    z.strictObject({
      value: z.string().min(5, 'the value to erase must be at least 5 characters').max(10_000),
      dryRun: z.boolean().default(true),
      confirm: z.boolean().default(false),
      deleteExports: z.boolean().default(false),
    }),
    'Erase a value everywhere it was stored (dryRun lists the places first; erasing needs confirm)',
  ),
  'health.secondOpinion': mutation<FindingDto[]>()(empty, 'Ask the configured OpenAI-compatible endpoint about the open contradiction and duplicate findings'),
};
