// One training record as a typed Parquet row: the same record the JSONL formats write (Alpaca's
// three fields, OpenAI's messages, ShareGPT's conversations as lists of structs), plus its labels,
// quality factors and lineage as columns, so an engine can filter and join without parsing JSON.
import { hash } from 'node:crypto';
import { version as packageVersion } from '../../../package.json';
import { alpacaRecord, openaiRecord, sharegptRecord, taskOf, type Task } from '../dataset/formats';
import type { DatasetSample, SampleContent } from '../dataset/types';
import type { ParquetColumn, ParquetRow } from './writer';
import type { DataSplit } from '../../shared/domain';

/** The exporting version, stamped on every row and file: package.json's, bundled at build time. */
export const EXPORTER_VERSION = `reflection-workbench ${packageVersion}`;

export const TRAINING_COLUMNS: readonly ParquetColumn[] = [
  { name: 'sample_id', type: 'string', nullable: false, encoding: 'plain' },
  { name: 'sample_type', type: 'string', nullable: false },
  { name: 'session_id', type: 'string', nullable: false },
  { name: 'turn_id', type: 'string', encoding: 'plain' },
  { name: 'decision_id', type: 'string', encoding: 'plain' },
  { name: 'audit_id', type: 'string', encoding: 'plain' },
  { name: 'correction_id', type: 'string', encoding: 'plain' },
  { name: 'split', type: 'string', nullable: false },
  { name: 'annotation_status', type: 'string', nullable: false },
  { name: 'annotated_by', type: 'string' },
  { name: 'label', type: 'string' },
  { name: 'fact', type: 'string', noStatistics: true },
  { name: 'quality_score', type: 'double' },
  { name: 'conversation_clarity', type: 'double' },
  { name: 'decision_confidence', type: 'double' },
  { name: 'fact_verifiability', type: 'double' },
  { name: 'contains_pii', type: 'bool', nullable: false },
  { name: 'instruction', type: 'string', nullable: false, noStatistics: true },
  { name: 'input', type: 'string', nullable: false, encoding: 'plain', noStatistics: true },
  { name: 'output', type: 'string', nullable: false, noStatistics: true },
  { name: 'messages', type: 'struct-list', fields: ['role', 'content'], noStatistics: true },
  { name: 'conversations', type: 'struct-list', fields: ['from', 'value'], encoding: 'dictionary', noStatistics: true },
  { name: 'record_hash', type: 'string', nullable: false, encoding: 'plain', noStatistics: true, compressed: false },
  { name: 'created_at', type: 'timestamp', nullable: false, encoding: 'plain' },
];

/** Lineage columns a fleet export adds in front of every row. */
export const LINEAGE_COLUMNS: readonly ParquetColumn[] = [
  { name: 'agent', type: 'string', nullable: false },
  { name: 'workspace', type: 'string', nullable: false },
  { name: 'export_id', type: 'string', nullable: false },
  { name: 'exporter_version', type: 'string', nullable: false },
];

/** Identity of what a record teaches: two rows with the same hash would train the same thing. */
export function recordHash(alpaca: { instruction: string; input: string; output: string }): string {
  // one-shot: a Hash object per row cost as much as the hashing
  return hash('sha256', `${alpaca.instruction}\u0000${alpaca.input}\u0000${alpaca.output}`, 'hex');
}

/** The sample fields a training row reads. */
export type TrainingRowSample = Pick<
  DatasetSample,
  | 'id'
  | 'sampleType'
  | 'turnId'
  | 'decisionId'
  | 'auditId'
  | 'correctionId'
  | 'annotationStatus'
  | 'annotatedBy'
  | 'qualityScore'
  | 'qualityFactors'
  | 'containsPii'
  | 'createdAt'
>;

/** The row for one (already redacted, unless the curator asked otherwise) sample; task: taskOf(content), when known. */
export function trainingRow(
  s: TrainingRowSample,
  content: SampleContent,
  split: DataSplit,
  sessionLabel: string,
  task: Task = taskOf(content),
): ParquetRow {
  const alpaca = alpacaRecord(content, task);
  const { messages } = openaiRecord(content, task);
  const { conversations } = sharegptRecord(content, task);
  return {
    sample_id: s.id,
    sample_type: s.sampleType,
    session_id: sessionLabel,
    turn_id: s.turnId,
    decision_id: s.decisionId,
    audit_id: s.auditId,
    correction_id: s.correctionId,
    split,
    annotation_status: s.annotationStatus,
    annotated_by: s.annotatedBy,
    label: task.decision ?? null,
    fact: task.fact ?? null,
    quality_score: s.qualityScore,
    conversation_clarity: s.qualityFactors?.conversationClarity ?? null,
    decision_confidence: s.qualityFactors?.decisionConfidence ?? null,
    fact_verifiability: s.qualityFactors?.factVerifiability ?? null,
    contains_pii: s.containsPii,
    instruction: alpaca.instruction,
    input: alpaca.input,
    output: alpaca.output,
    messages,
    conversations,
    record_hash: recordHash(alpaca),
    created_at: s.createdAt,
  };
}
