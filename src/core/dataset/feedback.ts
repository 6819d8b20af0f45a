// Seed 004's feedback signals, found by rule-based lexicons (English and Chinese) in user messages.
// The seed extracts them with an LLM; offline and for 100,000 turns a lexicon is what we can afford.
// Each rule carries a confidence; the evidence is the clause that matched, verbatim.

export const FEEDBACK_TYPES = ['reject', 'correction', 'constraint', 'success', 'confusion', 'preference'] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];

export interface FeedbackSignal {
  type: FeedbackType;
  source: 'user';
  language: 'en' | 'zh';
  rule: string;
  evidence: string;
  confidence: number;
}

interface Rule {
  id: string;
  type: FeedbackType;
  language: 'en' | 'zh';
  re: RegExp;
  confidence: number;
}

const en = (id: string, type: FeedbackType, re: RegExp, confidence: number): Rule => ({
  id: `en:${id}`,
  type,
  language: 'en',
  re,
  confidence,
});
const zh = (id: string, type: FeedbackType, re: RegExp, confidence: number): Rule => ({
  id: `zh:${id}`,
  type,
  language: 'zh',
  re,
  confidence,
});

const RULES: Rule[] = [
  en('not-what-i-want', 'reject', /\b(?:that'?s|this is|it'?s) not what I (?:want(?:ed)?|asked(?: for)?|meant)\b/i, 0.9),
  en(
    'dont-remember',
    'reject',
    /\b(?:don'?t|do not|never|stop) (?:remember|save|store|record|write down)(?:ing)? (?:that|this|it)\b/i,
    0.9,
  ),
  en('forget-it', 'reject', /\b(?:please )?(?:forget|delete|remove|undo) (?:that|this|it)\b/i, 0.85),
  en('wrong', 'reject', /\b(?:that'?s|that is|this is|you'?re|you are|it'?s|it is) (?:wrong|incorrect|not (?:right|correct|true))\b/i, 0.8),
  en('no-thats-not', 'reject', /^\s*no[,.!]\s+(?:that|this|it)\b/i, 0.7),
  en('i-meant', 'correction', /\b(?:I meant|what I meant (?:is|was)|I said)\b/i, 0.75),
  en('should-be', 'correction', /\b(?:it |that |this )?should (?:be|say|read) /i, 0.7),
  en('actually', 'correction', /^\s*actually[, ]/i, 0.65),
  en('not-x-but-y', 'correction', /\bnot [^,.;!?]{1,40}, (?:but|it'?s|rather) /i, 0.7),
  en('correction-colon', 'correction', /\bcorrection:/i, 0.85),
  en('also-must', 'constraint', /\b(?:also|and|but) (?:don'?t|do not|never|must(?: not)?|make sure|always)\b/i, 0.7),
  en('must-not', 'constraint', /\b(?:must not|mustn'?t|never use|only use|without using|do not use|don'?t use)\b/i, 0.65),
  en('thanks', 'success', /\b(?:thanks|thank you|thx)\b/i, 0.6),
  en(
    'works',
    'success',
    /\b(?:it works|works now|that worked|that'?s (?:right|correct|it)|perfect|exactly(?: right)?|looks good|got it right)\b/i,
    0.75,
  ),
  en('why', 'confusion', /\bwhy (?:is|did|does|would|do|are|was)\b/i, 0.6),
  en('dont-understand', 'confusion', /\b(?:what do you mean|I don'?t (?:understand|get it)|confus(?:ed|ing)|makes no sense)\b/i, 0.8),
  en('i-prefer', 'preference', /\bI(?:'d| would)? (?:prefer|rather|like|love|hate|dislike|usually|always)\b/i, 0.7),
  en('my-favorite', 'preference', /\bmy (?:favou?rite|preferred)\b/i, 0.7),
  zh('bu-shi-wo-yao', 'reject', /(?:这|那)?不是我(?:要|想要|说)的/, 0.9),
  zh('bie-ji', 'reject', /(?:不要|别|不用|不需要)(?:记|记住|记录|保存|写进)/, 0.9),
  zh('wang-diao', 'reject', /(?:忘掉|删掉|删除|撤销|撤回)(?:这|那|它|吧)?/, 0.8),
  zh('bu-dui', 'reject', /(?:不对|错了|不正确|搞错了)/, 0.75),
  zh('ying-gai-shi', 'correction', /(?:应该是|其实是|我是说|我的意思是|更正|改成)/, 0.75),
  zh('bu-shi-er-shi', 'correction', /不是[^，,。！？]{1,20}[，,]\s*(?:而)?是/, 0.75),
  zh('er-qie-bu-neng', 'constraint', /(?:而且|另外|还有)?(?:不能|不许|不准|必须|务必|只能|一定要|不要用)/, 0.65),
  zh('ke-yi-le', 'success', /(?:可以了|对了|没问题了|完美|成功了|就是这样|太好了)/, 0.75),
  zh('xie-xie', 'success', /(?:谢谢|多谢|感谢)/, 0.6),
  zh('wei-shen-me', 'confusion', /(?:为什么|为啥|怎么回事|什么意思)/, 0.65),
  zh('bu-ming-bai', 'confusion', /(?:不明白|没懂|看不懂|不理解|搞不懂)/, 0.8),
  zh('wo-xi-huan', 'preference', /我(?:更|比较|还是)?(?:喜欢|偏好|习惯|倾向于|不喜欢|讨厌)/, 0.7),
  zh('geng-xiang', 'preference', /我更想/, 0.7),
];

/** A request to remember something; used for userLaterRequestedSimilar, not one of seed 004's types. */
const REMEMBER_REQUEST = /\b(?:remember|note that|don'?t forget|keep in mind|save (?:this|that))\b|记住|记一下|记下|别忘了|帮我记/i;

const CLAUSE_SPLIT = /(?<=[.!?。！？;；\n])/;

function clauseAround(text: string, index: number): string {
  let start = 0;
  for (const part of text.split(CLAUSE_SPLIT)) {
    const end = start + part.length;
    if (index < end) return part.trim().slice(0, 240);
    start = end;
  }
  return text.trim().slice(0, 240);
}

/** Every signal in one user message: at most one per rule, the strongest rule per type first. */
export function detectFeedbackSignals(message: string): FeedbackSignal[] {
  if (!message) return [];
  const found: FeedbackSignal[] = [];
  for (const rule of RULES) {
    const m = rule.re.exec(message);
    if (!m) continue;
    found.push({
      type: rule.type,
      source: 'user',
      language: rule.language,
      rule: rule.id,
      evidence: clauseAround(message, m.index),
      confidence: rule.confidence,
    });
  }
  return found.sort((a, b) => b.confidence - a.confidence);
}

export function isRememberRequest(message: string): boolean {
  return REMEMBER_REQUEST.test(message);
}

/** A user objection: a reject or a correction. */
export const isObjection = (s: { type: string }) => s.type === 'reject' || s.type === 'correction';
