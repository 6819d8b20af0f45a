import { createRedactionScope, type RedactOptions } from './scope';
import type { PiiSpan, RedactionResult } from './types';

export type { RedactOptions };

export interface Redactor {
  /** Redacts one text; placeholders continue the numbering of earlier calls. */
  redact(text: string, spans: PiiSpan[], opts?: RedactOptions): RedactionResult;
  /** Every placeholder handed out so far -> its original value. */
  readonly placeholders: Record<string, string>;
}

/**
 * One redactor per sample: the instruction, input and output fields of a sample share one numbering,
 * so "[EMAIL_1]" in the input is the same address as "[EMAIL_1]" in the output. A thin view of a
 * redaction scope (see scope.ts): one value keeps one placeholder whatever type each text gave it.
 */
export function createRedactor(): Redactor {
  const scope = createRedactionScope();
  return { placeholders: scope.placeholders, redact: (text, spans, opts) => scope.redact(text, spans, opts) };
}

export function redact(text: string, spans: PiiSpan[], opts?: RedactOptions): RedactionResult {
  return createRedactionScope().redact(text, spans, opts);
}
