// Contradictions and duplicates between memory lines, without a model. Two lines are aligned token
// by token (latin words, numbers, single Chinese characters); what they share is the frame, what
// differs are slots. Lines that share most of their frame and differ only in short value slots state
// the same attribute with different values (a contradiction) when the frame names a single-valued
// attribute (location, time zone, phone, email, name, preference, schedule) and the first slot is
// not the subject. Lines that differ in nothing but wording repeat a fact (a duplicate).
import { diffArrays } from 'diff';
import { jaccard } from '../dataset/similarity';

export type ConflictKind = 'contradiction' | 'duplicate';

export interface PairVerdict {
  kind: ConflictKind;
  attribute: string;
  /** The differing values, one list per line. */
  values: [string[], string[]];
}

interface Token {
  text: string;
  lower: string;
  cjk: boolean;
}

// A Han character alone, or a run of other letters and digits (with inner . _ @ + / - ' kept, for emails, versions, time zones).
const TOKEN =
  /\p{Script=Han}|(?:(?!\p{Script=Han})[\p{L}\p{N}])(?:(?:(?!\p{Script=Han})[\p{L}\p{N}'’._@+/-])*(?:(?!\p{Script=Han})[\p{L}\p{N}]))?/gu;
const HAN = /\p{Script=Han}/u;

/** The statement of a memory line: list markers, checkboxes and emphasis removed. */
export function statementOf(line: string): string {
  return line
    .normalize('NFKC')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '')
    .replace(/[*_`]+/g, '')
    .trim();
}

export function tokenize(text: string): Token[] {
  return [...statementOf(text).matchAll(TOKEN)].map((m) => ({ text: m[0], lower: m[0].toLowerCase(), cjk: HAN.test(m[0]) }));
}

/** A line that states something (not a heading, rule or blank line). */
export function isFactLine(line: string): boolean {
  const t = line.trim();
  if (!t || /^#{1,6}\s/.test(t) || /^[-*_=]{3,}$/.test(t) || /^```/.test(t)) return false;
  return tokenize(t).length >= 3;
}

const NEGATIONS = new Set(['not', 'no', 'never', "don't", "doesn't", 'dont', 'doesnt', 'longer', '不', '没', '别', '无', '非', '再']);

const ATTRIBUTE_CUES: Array<[string, RegExp]> = [
  ['time zone', /time ?zone|timezone|时区|\butc\b|\bgmt\b/],
  ['phone', /phone|mobile|\bcell\b|\bcall\b|\btel\b|whatsapp|手机|电话|号码/],
  ['email', /e-?mail|邮箱|\bmail\b/],
  ['location', /\blives?\b|\bliving\b|\bmoved\b|\bbased\b|\blocated\b|\bresides?\b|\bhome ?town\b|\bcity\b|现居|居住|住在|搬到|所在|定居/],
  ['name', /\bname\b|\bcalled\b|\bnamed\b|名字|叫|称呼/],
  // "likes" and "loves" are left out on purpose: people like many things at once.
  ['preference', /prefer|favou?rite|\bhobby\b|\bdrinks?\b|\bwants?\b|偏好|爱好|爱喝|习惯|口味/],
  ['schedule', /\bevery\b|standup|meeting|\blaunch|scheduled|deadline|\bdue\b|\bat \d|周会|上线|每周|截止|会议|点/],
  ['role', /\brole\b|\btitle\b|\bjob\b|works as|职位|角色|负责/],
];

const slotText = (tokens: Token[]) => tokens.map((t) => t.text).join(tokens.some((t) => t.cjk) ? '' : ' ');

function slotIsValue(tokens: Token[]): boolean {
  if (!tokens.length) return false;
  const cjk = tokens.filter((t) => t.cjk).length;
  return tokens.length - cjk <= 4 && cjk <= 8;
}

const isNegationSlot = (tokens: Token[]) => tokens.length > 0 && tokens.every((t) => NEGATIONS.has(t.lower));

const AUXILIARIES = new Set(['do', 'does', 'did', 'is', 'are', 'was', 'will', 'can', 'any', 'more', '会', '能', '要']);
const stem = (w: string) => w.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');

/** "likes" vs "does not like", "喜欢" vs "不喜欢": the same verb with and without a negation. */
function negates(a: Token[], b: Token[]): boolean {
  const hasNeg = (ts: Token[]) => ts.some((t) => NEGATIONS.has(t.lower));
  if (hasNeg(a) === hasNeg(b)) return false;
  const core = (ts: Token[]) =>
    ts
      .filter((t) => !NEGATIONS.has(t.lower) && !AUXILIARIES.has(t.lower))
      .map((t) => stem(t.lower))
      .join(' ');
  return core(a) === core(b);
}

const NUMBER_WORDS =
  /^(?:\d[\d.,:]*(?:st|nd|rd|th|am|pm|k|km|kg)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[零一二两三四五六七八九十百千万])$/;
const hasNumber = (ts: Token[]) => ts.some((t) => NUMBER_WORDS.test(t.lower));

const COPULA_WORDS = new Set(['is', 'are', 'was', 'were', 'equals', '是', '为', '叫']);

function attributeOf(frame: string, slots: string[]): string | null {
  const all = slots.join(' ');
  if (/\b[A-Z][a-z]+\/[A-Z][A-Za-z_]+\b|\b(?:UTC|GMT)[+-]\d/.test(all))
    return slots.some((s) => /^[A-Z][a-z]+\/|^(UTC|GMT)/.test(s)) && /\blives?\b|现居|住/.test(frame) ? 'location' : 'time zone';
  if (/@/.test(all)) return 'email';
  const lower = frame.toLowerCase();
  for (const [name, cue] of ATTRIBUTE_CUES) if (cue.test(lower)) return name;
  return null;
}

interface Alignment {
  common: Token[];
  slots: Array<{ a: Token[]; b: Token[]; at: number }>;
}

function align(a: Token[], b: Token[]): Alignment {
  const common: Token[] = [];
  const slots: Alignment['slots'] = [];
  let current: Alignment['slots'][number] | null = null;
  let posA = 0;
  let posB = 0;
  for (const part of diffArrays(
    a.map((t) => t.lower),
    b.map((t) => t.lower),
  )) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      current = null;
      common.push(...a.slice(posA, posA + n));
      posA += n;
      posB += n;
      continue;
    }
    if (!current) slots.push((current = { a: [], b: [], at: common.length }));
    if (part.removed) {
      current.a.push(...a.slice(posA, posA + n));
      posA += n;
    } else {
      current.b.push(...b.slice(posB, posB + n));
      posB += n;
    }
  }
  return { common, slots };
}

const DUPLICATE_JACCARD = 0.8;

/** Whether two memory lines contradict or repeat each other, and on which attribute. */
export function comparePair(lineA: string, lineB: string): PairVerdict | null {
  const a = tokenize(lineA);
  const b = tokenize(lineB);
  if (a.length < 2 || b.length < 2) return null;
  const { common, slots } = align(a, b);
  if (!slots.length) return { kind: 'duplicate', attribute: 'same statement', values: [[], []] };
  const longest = Math.max(a.length, b.length);
  const frame = slotText(common);
  const values: [string[], string[]] = [slots.map((s) => slotText(s.a)).filter(Boolean), slots.map((s) => slotText(s.b)).filter(Boolean)];
  const only = slots.length === 1 ? slots[0] : undefined;
  const negation =
    !!only && (negates(only.a, only.b) || (isNegationSlot(only.a) !== isNegationSlot(only.b) && (!only.a.length || !only.b.length)));
  if (negation && common.length >= 2 && common.length / longest >= 0.4) return { kind: 'contradiction', attribute: 'negation', values };
  // Inflections are not values: "morning" vs "mornings".
  const twoSided = slots.filter(
    (s) => s.a.length && s.b.length && s.a.map((t) => stem(t.lower)).join(' ') !== s.b.map((t) => stem(t.lower)).join(' '),
  );
  const firstSided = twoSided[0];
  if (!firstSided) {
    // Only additions on one side: a restatement with more detail.
    return jaccard(statementOf(lineA), statementOf(lineB)) >= 0.5 && common.length / longest >= 0.6
      ? { kind: 'duplicate', attribute: 'restated', values }
      : null;
  }
  if (common.length / longest < 0.5 || !twoSided.every((s) => slotIsValue(s.a) && slotIsValue(s.b))) {
    return jaccard(statementOf(lineA), statementOf(lineB)) >= DUPLICATE_JACCARD
      ? { kind: 'duplicate', attribute: 'near duplicate', values }
      : null;
  }
  // A different first word (or first characters) is a different subject: "Helios standup" vs "Quartz standup".
  if (firstSided.at === 0 && slots[0] === firstSided) return null;
  // A slot right before "is" names the attribute itself: "favourite editor is" vs "favourite shell is".
  if (twoSided.some((s) => COPULA_WORDS.has(common[s.at]?.lower ?? ''))) return null;
  const attribute = attributeOf(
    frame,
    twoSided.flatMap((s) => [slotText(s.a), slotText(s.b)]),
  );
  if (attribute) return { kind: 'contradiction', attribute, values };
  if (slots.length === 1 && hasNumber(firstSided.a) && hasNumber(firstSided.b))
    return { kind: 'contradiction', attribute: 'number', values };
  // Without an attribute word, only "X is <value>" counts: the slot must follow a copula.
  const before = common[firstSided.at - 1]?.lower;
  return slots.length === 1 && before !== undefined && COPULA_WORDS.has(before)
    ? { kind: 'contradiction', attribute: 'value', values }
    : null;
}

export interface MemoryLine {
  fileName: string;
  line: number;
  text: string;
}

export interface ConflictGroup {
  kind: ConflictKind;
  attribute: string;
  lines: MemoryLine[];
  values: string[][];
}

/** Candidate pairs share at least two content tokens, so comparing every pair is never needed. */
function candidatePairs(lines: MemoryLine[], tokens: Token[][]): Array<[number, number]> {
  const postings = new Map<string, number[]>();
  tokens.forEach((ts, i) => {
    const keys = new Set<string>();
    for (const [k, t] of ts.entries()) {
      const next = ts[k + 1];
      if (t.cjk) {
        if (next?.cjk) keys.add(t.lower + next.lower);
      } else if (t.lower.length > 2) keys.add(t.lower);
    }
    for (const key of keys) postings.set(key, [...(postings.get(key) ?? []), i]);
  });
  const shared = new Map<number, number>();
  for (const ids of postings.values()) {
    if (ids.length > 200) continue; // a word on every line ("user") says nothing
    for (let x = 0; x < ids.length; x++)
      for (let y = x + 1; y < ids.length; y++) {
        const key = ids[x]! * lines.length + ids[y]!; // x < y < ids.length
        shared.set(key, (shared.get(key) ?? 0) + 1);
      }
  }
  const pairs = new Set([...shared].filter(([, n]) => n >= 2).map(([key]) => key));
  // Lines cut from one template ("User's phone … is <number>") are compared even when their words
  // are on too many lines to index: that is exactly where a file repeats one attribute.
  const templates = new Map<string, number[]>();
  tokens.forEach((ts, i) => {
    const key = ts.map((t) => (/\d/.test(t.lower) || (!t.cjk && /^\p{Lu}/u.test(t.text)) ? '#' : t.lower)).join(' ');
    templates.set(key, [...(templates.get(key) ?? []), i]);
  });
  const key = (x: number, y: number) => Math.min(x, y) * lines.length + Math.max(x, y);
  for (const ids of templates.values()) {
    if (ids.length < 2) continue;
    // Contradictions are grouped transitively, so each line against the first connects the group;
    // sorted by text, equal lines are neighbours, so a repeat is found against the one before.
    // ids index lines; sorted has at least two entries, k - 1 is one of them
    const sorted = [...ids].sort((x, y) => (lines[x]!.text < lines[y]!.text ? -1 : 1));
    sorted.forEach((id, k) => {
      if (k > 0) pairs.add(key(sorted[0]!, id)).add(key(sorted[k - 1]!, id));
    });
  }
  return [...pairs]
    .filter((k) => Math.floor(k / lines.length) !== k % lines.length)
    .map((k) => [Math.floor(k / lines.length), k % lines.length]);
}

/** Groups contradicting lines (same attribute, transitively) and repeated lines across the given memory lines. */
export function findConflicts(lines: MemoryLine[]): ConflictGroup[] {
  const facts = lines.filter((l) => isFactLine(l.text));
  const tokens = facts.map((l) => tokenize(l.text));
  const parent = facts.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!))); // i indexes facts, as parent does
  const groups = new Map<string, { kind: ConflictKind; attribute: string; members: Set<number>; values: Map<number, string[]> }>();
  const verdicts: Array<{ i: number; j: number; v: PairVerdict }> = [];
  for (const [i, j] of candidatePairs(facts, tokens)) {
    const v = comparePair(facts[i]!.text, facts[j]!.text); // candidate pairs index facts
    if (v) verdicts.push({ i, j, v });
  }
  for (const { i, j, v } of verdicts) if (v.kind === 'contradiction') parent[find(i)] = find(j);
  for (const { i, j, v } of verdicts) {
    const key = v.kind === 'contradiction' ? `c:${find(i)}` : `d:${Math.min(i, j)}:${Math.max(i, j)}`;
    const g = groups.get(key) ?? { kind: v.kind, attribute: v.attribute, members: new Set<number>(), values: new Map<number, string[]>() };
    g.members.add(i).add(j);
    g.values.set(i, v.values[0]);
    g.values.set(j, v.values[1]);
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => {
    const members = [...g.members].sort((x, y) => x - y);
    return {
      kind: g.kind,
      attribute: g.attribute,
      lines: members.map((m) => facts[m]!),
      values: members.map((m) => g.values.get(m) ?? []),
    };
  });
}
