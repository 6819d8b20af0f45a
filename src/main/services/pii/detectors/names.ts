import type { PiiSpan } from '../types';
import { makeSpan } from '../util';

const NAME = "[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?";
const PATTERNS: { re: RegExp; detector: string; confidence: number }[] = [
  { re: new RegExp(`\\b(?:[Mm]y name is|[Mm]y name's|[Cc]all me|[Tt]his is)\\s+(${NAME}(?:\\s+${NAME}){0,2})`, 'g'), detector: 'context:intro', confidence: 0.4 },
  { re: new RegExp(`\\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\\.?\\s+(${NAME}(?:\\s+${NAME}){0,2})`, 'g'), detector: 'context:title', confidence: 0.45 },
  { re: new RegExp(`\\b(?:[Nn]ame|[Ff]ull name)\\s*[:=]\\s*(${NAME}(?:\\s+${NAME}){0,2})`, 'g'), detector: 'context:field', confidence: 0.4 },
  { re: /(?:我叫|我的名字是|我的名字叫|本人|姓名[:：]?\s*|名字[:：]\s*)([\u4e00-\u9fff]{2,3})(?=[，。,.\s！!；;、]|$|是|的)/g, detector: 'context:zh-intro', confidence: 0.35 },
];

// Words that follow "This is" or "call me" but are not names.
const NOT_NAMES = new Set(['The', 'This', 'That', 'It', 'What', 'How', 'Not', 'Just', 'Here', 'There', 'Monday', 'Today', 'Tomorrow']);

export function detectNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const p of PATTERNS) {
    for (const m of text.matchAll(p.re)) {
      const name = m[1];
      if (NOT_NAMES.has(name.split(/\s+/)[0])) continue;
      const start = m.index + m[0].length - name.length;
      out.push(makeSpan(text, 'PERSON', start, start + name.length, p.confidence, p.detector));
    }
  }
  return out;
}
