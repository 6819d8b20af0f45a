import type { PiiSpan } from '../types';
import { makeSpan } from '../util';

// A capitalised word in any Latin script ("Šárka", "O'Neil", "Jean-Luc").
const NAME = "\\p{Lu}\\p{Ll}+(?:[-'’]\\p{Lu}?\\p{Ll}+)?";
const FULL = `${NAME}(?:\\s+(?:\\p{Lu}\\.?\\s+)?${NAME}){0,2}`;
const PATTERNS: { re: RegExp; detector: string; confidence: number }[] = [
  { re: new RegExp(`\\b(?:[Mm]y name is|[Mm]y name's|[Cc]all me|I'm|I am)\\s+(${FULL})(?=[\\s,.;!?)]|$)`, 'gu'), detector: 'context:intro', confidence: 0.4 },
  { re: new RegExp(`\\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam)\\.?\\s+(${FULL})`, 'gu'), detector: 'context:title', confidence: 0.45 },
  { re: new RegExp(`\\b(?:[Nn]ame|[Ff]ull name|[Cc]ontact|[Aa]ttn|[Ss]igned)\\s*[:=]\\s*(${FULL})`, 'gu'), detector: 'context:field', confidence: 0.4 },
  { re: new RegExp(`\\b(?:Dear|Hi|Hello|Hey|Thanks|Regards|Sincerely|Cheers),?\\s+(${FULL})(?=[\\s]*[,.!\\n]|$)`, 'gu'), detector: 'context:salutation', confidence: 0.3 },
  { re: new RegExp(`\\b(?:name is|named|called|says|said|directed by|written by|starring|signed by|assistant to|follow up with|married to)\\s+(${FULL})(?=[\\s,.;:!?)"']|$)`, 'gu'), detector: 'context:mention', confidence: 0.3 },
  { re: /(?:我叫|我的名字是|我的名字叫|本人|姓名[:：]?\s*|名字[:：]\s*|联系人[:：]?\s*)([\u4e00-\u9fff]{2,3})(?=[，。,.\s！!；;、\d]|$|是|的)/gu, detector: 'context:zh-intro', confidence: 0.35 },
];

// Capitalised words that follow "I am", "Hi" or "call me" but are not names.
const NOT_NAMES = new Set([
  'The', 'This', 'That', 'It', 'What', 'How', 'Not', 'Just', 'Here', 'There', 'So', 'Very', 'Really', 'Sorry', 'Happy', 'Glad',
  'Sure', 'Back', 'Done', 'Ready', 'Fine', 'Good', 'Great', 'Thanks', 'All', 'Everyone', 'Team', 'Guys', 'Folks', 'Sir', 'Madam',
  'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'Today', 'Tomorrow', 'Again', 'Also', 'Going',
  'Working', 'Looking', 'Trying', 'English', 'Chinese', 'American', 'British', 'Customer', 'Support', 'Admin', 'User',
]);

export function detectNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const p of PATTERNS) {
    for (const m of text.matchAll(p.re)) {
      let name = m[1];
      const words = name.split(/\s+/);
      if (NOT_NAMES.has(words[0])) continue;
      while (words.length > 1 && NOT_NAMES.has(words[words.length - 1])) words.pop();
      name = name.slice(0, name.lastIndexOf(words[words.length - 1]) + words[words.length - 1].length);
      const start = m.index + m[0].length - m[1].length; // the name always ends the match
      out.push(makeSpan(text, 'PERSON', start, start + name.length, p.confidence, p.detector));
    }
  }
  return out;
}
