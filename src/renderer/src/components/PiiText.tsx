// PII spans highlighted inside the text they were found in, as React elements (never HTML). A span the
// curator keeps is shown green; one to be redacted orange. Clicking toggles the choice.
import type { PiiSpanDto } from '../../../shared/contract';
import { revealInvisible } from './VisibleText';

/** Spans of one value: the export hides a value wherever it appears, so the curator decides per value. */
export const spanKey = (s: Pick<PiiSpanDto, 'type' | 'value'>) => `${s.type}\u0000${s.value}`;

export interface PiiGroup {
  key: string;
  type: string;
  value: string;
  spans: PiiSpanDto[];
  decision: 'redact' | 'keep';
}

export function groupSpans(spans: readonly PiiSpanDto[]): PiiGroup[] {
  const groups = new Map<string, PiiGroup>();
  for (const s of spans) {
    const key = spanKey(s);
    const g = groups.get(key) ?? { key, type: s.type, value: s.value, spans: [], decision: 'keep' as const };
    g.spans.push(s);
    if (s.decision !== 'keep') g.decision = 'redact';
    groups.set(key, g);
  }
  return [...groups.values()];
}

interface Part {
  text: string;
  span?: PiiSpanDto;
}

export function splitBySpans(text: string, spans: readonly PiiSpanDto[]): Part[] {
  const sorted = spans.filter((s) => s.start >= 0 && s.end <= text.length && s.end > s.start).sort((a, b) => a.start - b.start);
  const parts: Part[] = [];
  let pos = 0;
  for (const s of sorted) {
    if (s.start < pos) continue; // overlapping detections: the first one wins on screen
    if (s.start > pos) parts.push({ text: text.slice(pos, s.start) });
    parts.push({ text: text.slice(s.start, s.end), span: s });
    pos = s.end;
  }
  if (pos < text.length) parts.push({ text: text.slice(pos) });
  return parts;
}

/** Spans located by value in a text that has no offsets of its own (the conversation around a sample). */
export function spansByValue(text: string, spans: readonly PiiSpanDto[]): PiiSpanDto[] {
  const out: PiiSpanDto[] = [];
  for (const s of spans) {
    if (!s.value) continue;
    for (let i = text.indexOf(s.value); i !== -1; i = text.indexOf(s.value, i + s.value.length))
      out.push({ ...s, start: i, end: i + s.value.length });
  }
  return out;
}

/** The text with redact-spans replaced by typed, numbered placeholders, numbered per value as the exporter does. */
export function redactLocally(text: string, spans: readonly PiiSpanDto[]): string {
  const numbers = new Map<string, string>();
  const counters = new Map<string, number>();
  return splitBySpans(text, spans)
    .map((p) => {
      if (!p.span || p.span.decision === 'keep') return p.text;
      const key = `${p.span.type}\u0000${p.span.value}`;
      let ph = numbers.get(key);
      if (!ph) {
        const n = (counters.get(p.span.type) ?? 0) + 1;
        counters.set(p.span.type, n);
        ph = `[${p.span.type}_${n}]`;
        numbers.set(key, ph);
      }
      return ph;
    })
    .join('');
}

export function PiiText({
  text,
  spans,
  selectedKey,
  onToggle,
}: {
  text: string;
  spans: readonly PiiSpanDto[];
  selectedKey?: string;
  onToggle?: (span: PiiSpanDto) => void;
}) {
  return (
    <>
      {splitBySpans(text, spans).map((p, i) =>
        p.span ? (
          <span
            key={i}
            className={`pii${p.span.decision === 'keep' ? ' keep' : ''}${spanKey(p.span) === selectedKey ? ' selected' : ''}`}
            title={`${p.span.type} (${Math.round(p.span.confidence * 100)}%, ${p.span.detector}) — ${p.span.decision === 'keep' ? 'kept as is' : 'will be redacted'}; click to change`}
            data-pii-id={p.span.id}
            data-decision={p.span.decision}
            onClick={onToggle ? () => onToggle(p.span!) : undefined}
          >
            {revealInvisible(p.text)}
            <span className="pii-type">{p.span.type}</span>
          </span>
        ) : (
          <span key={i}>{revealInvisible(p.text)}</span>
        ),
      )}
    </>
  );
}
