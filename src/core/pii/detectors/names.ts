import type { PiiSpan } from '../types';
import { allMatches, makeSpan } from '../util';
import { AMBIGUOUS_SURNAMES, COMPOUND_SURNAMES, SURNAMES } from './surnames';

// A capitalised word in any Latin script ("Šárka", "O'Neil", "Jean-Luc").
const NAME = "\\p{Lu}\\p{Ll}+(?:[-'’]\\p{Lu}?\\p{Ll}+)?";
const FULL = `${NAME}(?:\\s+(?:\\p{Lu}\\.?\\s+)?${NAME}){0,2}`;

// "产品名字是华为", "助手的名字是小溪": the name of a product, a group, a bot or a pet, not of a person.
const THING_BEFORE_NAME = '(?<!(?:产品|项目|公司|软件|应用|文件|品牌|店铺|群|机器人|助手|宠物|猫|狗)的?)';

// "Project name: Atlas", "file name: Report": a name field of a thing, not of a person.
const NOT_PERSON_QUALIFIER =
  '(?<!\\b(?:[Pp]roject|[Ff]ile|[Bb]ranch|[Hh]ost|[Pp]roduct|[Cc]ompany|[Aa]pp|[Tt]eam|[Rr]epo|[Pp]ackage|[Mm]odel|[Dd]isplay|[Dd]omain|[Ss]erver|[Dd]atabase|[Tt]able|[Cc]olumn|[Ff]ield|[Ee]vent|[Cc]hannel|[Gg]roup|[Cc]lass|[Ff]unction|[Vv]ariable|[Kk]ey|[Bb]rand|[Dd]evice|[Nn]etwork|[Bb]ucket|[Ss]ervice|[Bb]ot|[Aa]gent|[Aa]ssistant)[ _-]?)';

interface NamePattern {
  re: RegExp;
  /**
   * The prefilter: the cue words alone. `re` is built around them as a required part of every match (never
   * optional, never one branch of an alternation), so a text the cue does not match cannot match `re`.
   */
  cue: RegExp;
  detector: string;
  confidence: number;
  /** A cue that names a person outright ("my name is", "Dr."): on by default. The rest only with names: true. */
  cued: boolean;
}

/** A pattern whose regex is `build` applied to its cue, compiled with the same flags as the cue's prefilter. */
function namePattern(cue: string, build: (cue: string) => string, detector: string, confidence: number, cued: boolean): NamePattern {
  return { re: new RegExp(build(`(?:${cue})`), 'gu'), cue: new RegExp(cue, 'u'), detector, confidence, cued };
}

const PATTERNS: NamePattern[] = [
  namePattern(
    "[Mm]y name is|[Mm]y name's|[Mm]y full name is",
    (cue) => `\\b${cue}\\s+(${FULL})(?=[\\s,.;!?)]|$)`,
    'context:intro',
    0.45,
    true,
  ),
  namePattern("[Cc]all me|I'm|I am", (cue) => `\\b${cue}\\s+(${FULL})(?=[\\s,.;!?)]|$)`, 'context:intro', 0.4, false),
  namePattern('Mr|Mrs|Ms|Miss|Mx|Dr|Prof', (cue) => `\\b${cue}\\.?\\s+(${FULL})`, 'context:title', 0.45, true),
  namePattern('Sir|Madam', (cue) => `\\b${cue}\\s+(${FULL})`, 'context:title', 0.4, false),
  namePattern(
    '(?:[Nn]ame|[Ff]ull name|[Cc]ontact|[Aa]ttn|[Ss]igned)\\s*[:=]',
    (cue) => `${NOT_PERSON_QUALIFIER}\\b${cue}\\s*(${FULL})`,
    'context:field',
    0.45,
    true,
  ),
  // A Latin name after a Chinese cue: "我叫 Tom Lee", "联系人：Anna".
  namePattern(
    `我叫|我的名字(?:是|叫)|${THING_BEFORE_NAME}名字(?:是|叫)|[他她]叫|名叫|(?:姓名|联系人|收件人|负责人)\\s*[:：]?`,
    (cue) => `${cue}\\s*(${FULL})(?![\\p{L}])`,
    'context:zh-intro-latin',
    0.45,
    true,
  ),
  namePattern(
    'Dear|Hi|Hello|Hey|Thanks|Regards|Sincerely|Cheers',
    (cue) => `\\b${cue},?\\s+(${FULL})(?=[\\s]*[,.!\\n]|$)`,
    'context:salutation',
    0.3,
    false,
  ),
  namePattern(
    'name is|named|called|says|said|directed by|written by|starring|signed by|assistant to|follow up with|married to',
    (cue) => `\\b${cue}\\s+(${FULL})(?=[\\s,.;:!?)"']|$)`,
    'context:mention',
    0.3,
    false,
  ),
];

// Capitalised words that follow "I am", "Hi" or "call me" but are not names.
const NOT_NAMES = new Set([
  'The',
  'This',
  'That',
  'It',
  'What',
  'How',
  'Not',
  'Just',
  'Here',
  'There',
  'So',
  'Very',
  'Really',
  'Sorry',
  'Happy',
  'Glad',
  'Sure',
  'Back',
  'Done',
  'Ready',
  'Fine',
  'Good',
  'Great',
  'Thanks',
  'All',
  'Everyone',
  'Team',
  'Guys',
  'Folks',
  'Sir',
  'Madam',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'Today',
  'Tomorrow',
  'Again',
  'Also',
  'Going',
  'Working',
  'Looking',
  'Trying',
  'English',
  'Chinese',
  'American',
  'British',
  'Customer',
  'Support',
  'Admin',
  'User',
]);

function detectLatinNames(text: string, all: boolean, prefilter: boolean): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const p of PATTERNS) {
    if (!p.cued && !all) continue;
    if (prefilter && !p.cue.test(text)) continue;
    for (const m of allMatches(p.re, text)) {
      const captured = m[1] ?? ''; // every pattern captures the name
      const words = captured.split(/\s+/);
      if (NOT_NAMES.has(words[0] ?? '')) continue;
      while (words.length > 1 && NOT_NAMES.has(words[words.length - 1] ?? '')) words.pop();
      const last = words[words.length - 1] ?? '';
      const name = captured.slice(0, captured.lastIndexOf(last) + last.length);
      const start = m.index + m[0].length - captured.length; // the name always ends the match
      out.push(makeSpan(text, 'PERSON', start, start + name.length, p.confidence, p.detector));
    }
  }
  return out;
}

const HAN = /[\u4e00-\u9fff]/;
// Characters that end a given name: particles, verbs and the first characters of "电话", "手机", "微信"...
const NOT_GIVEN = new Set(
  Array.from('的是在了和与跟及说要去来到把被给让请叫也都就还又很吗呢吧啊呀哦嘛着过们这那有没不从对为以而但或电手微邮号住今昨家先女老师'),
);

/** A name led by a surname that is also an everyday word ("高手", "方便"); compound surnames never are. */
const ambiguousLead = (name: string): boolean => AMBIGUOUS_SURNAMES.has(name.charAt(0)) && !COMPOUND_SURNAMES.has(name.slice(0, 2));

/** The surname (compound first) that starts at i, or ''. */
function surnameAt(text: string, i: number): string {
  const two = text.slice(i, i + 2);
  if (COMPOUND_SURNAMES.has(two)) return two;
  return SURNAMES.has(text.charAt(i)) ? text.charAt(i) : '';
}

/** Surname plus up to two given-name characters starting at i; '' when no surname starts there. */
function fullNameAt(text: string, i: number, maxGiven = 2): string {
  const surname = surnameAt(text, i);
  if (!surname) return '';
  let end = i + surname.length;
  while (end - i - surname.length < maxGiven && HAN.test(text[end] ?? '') && !NOT_GIVEN.has(text.charAt(end))) end++;
  return text.slice(i, end);
}

// "我叫王小明", "联系人：欧阳娜娜", "我的名字是李雷": the name follows the cue.
const ZH_INTRO = new RegExp(
  String.raw`(?:我叫|[他她]叫|名叫|叫做|我姓[\u4e00-\u9fff]{1,2}[,，]\s*(?:名叫|叫)?|我的名字(?:是|叫)|${THING_BEFORE_NAME}名字(?:是|叫)|本人(?:是|叫)?|我是|亲爱的|@|(?:你好|您好|嗨)[,，!！\s]\s*|(?:姓名|${THING_BEFORE_NAME}名字|联系人|收件人|收货人|寄件人|签收人|负责人|经办人|申请人|持卡人|开户人|户主|患者|乘客|法定代表人)\s*(?:[:：是为]\s*)?|\b(?:[Nn]ame|NAME|[Ff]ull name|[Cc]ontact)\s*[:：]\s*|\b(?:[Nn]ame is|[Nn]ame's|named)\s+|(?:署名|落款|签名)\s*[:：]\s*)(?=[\u4e00-\u9fff])`,
  'gu',
);
// Cues after which a name must stand alone (followed by a pause): they also precede ordinary words.
const LOOSE_CUE = /^(?:我是|本人|亲爱的|@|你好|您好|嗨)/;
// "实习生王小丽，", "我同事李娜说": a role right before a name that ends at a pause or a particle.
const ROLE_BEFORE =
  /(?:实习生|同事|朋友|同学|客户|助理|秘书|主管|经理|老板|老师|医生|律师|司机|室友|邻居|老公|老婆|丈夫|妻子|男友|女友|男朋友|女朋友)(?=[\u4e00-\u9fff])/gu;
// "我是程序员", "我是郑州人", "亲爱的顾客": roles, origins and places, not names.
const ROLE_OR_PLACE = /[人员师家者手长主工客东迷粉友州市省县区镇村乡岛城序籍]/;
// The narrower set for the last character of a name before a title ("刘强东先生" is a name).
const ROLE_OR_PLACE_END = /[人员师者手客迷粉友州市省县区镇村乡籍]/;
// "张先生", "王芳女士", "陈老师": a title after the name.
const ZH_TITLE =
  /(?:先生|女士|小姐|老师|医生|教授|经理|总监|主任|律师|师傅|同学|博士|阿姨|叔叔|大夫|太太|校长|院长|老板|总(?=[,，。.!！?？\s]|$)|[哥姐](?![哥姐们妹弟夫]))/gu;
// Words that stand before a title but are not names: subjects, shifts, "班主任".
const NOT_NAME_BEFORE_TITLE = /(?:历史|语文|中文|英文|日文|人文|天文|值班|班|主任|文科|理科|车间|党委)$/;
// Surnames that are far more often a preposition or a word before a title ("和老师", "向经理汇报", "师姐").
const NEVER_ALONE = new Set(Array.from('和向于师'));

function detectChineseNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of allMatches(ZH_INTRO, text)) {
    const at = m.index + m[0].length;
    const name = fullNameAt(text, at);
    const surname = surnameAt(text, at);
    if (name.length < 2 || name.length === surname.length) continue;
    // "我是高手", "亲爱的朋友们": after a loose cue the name must be followed by a pause and not start with a word.
    const after = text[at + name.length] ?? '';
    // "联系人管理：": after a field word, a word followed by a colon is a label, not the value of one
    // (a letter's "亲爱的张明：" is a salutation).
    if (/[:：]/.test(after) && !LOOSE_CUE.test(m[0]) && !/[:：]/.test(m[0])) continue;
    const pauseAfter = !HAN.test(after);
    if (LOOSE_CUE.test(m[0]) && (ambiguousLead(name) || !pauseAfter || ROLE_OR_PLACE.test(name.slice(1)))) continue;
    // "联系人管理": a surname that is also a word needs the pause even after a firm cue, unless a colon says a value follows.
    if (ambiguousLead(name) && !pauseAfter && !/[:：]/.test(m[0])) continue;
    out.push(makeSpan(text, 'PERSON', at, at + name.length, 0.5, 'context:zh-intro'));
  }
  for (const m of allMatches(ROLE_BEFORE, text)) {
    const at = m.index + m[0].length;
    const name = fullNameAt(text, at);
    const next = text[at + name.length] ?? '';
    if (name.length < 2 || name.length === surnameAt(text, at).length || ambiguousLead(name)) continue;
    if (HAN.test(next) && !NOT_GIVEN.has(next)) continue;
    if (ROLE_OR_PLACE.test(name.slice(1))) continue;
    out.push(makeSpan(text, 'PERSON', at, at + name.length, 0.45, 'context:zh-role'));
  }
  for (const m of allMatches(ZH_TITLE, text)) {
    const end = m.index;
    if (NOT_NAME_BEFORE_TITLE.test(text.slice(Math.max(0, end - 4), end))) continue;
    const start = nameStartBefore(text, end);
    // "苏州人老师", "房客先生": a role or origin before the title, not a name.
    if (start < 0 || (end - start > 1 && ROLE_OR_PLACE_END.test(text.charAt(end - 1)))) continue;
    out.push(makeSpan(text, 'PERSON', start, end, 0.5, 'context:zh-title'));
  }
  return out;
}

/** Where the name that ends at `end` starts: the longest surname-led run of up to three characters. */
function nameStartBefore(text: string, end: number): number {
  for (const len of [3, 2]) {
    const i = end - len;
    if (i < 0 || (AMBIGUOUS_SURNAMES.has(text.charAt(i)) && !COMPOUND_SURNAMES.has(text.slice(i, i + 2)))) continue;
    // Another surname right before makes the reading doubtful ("李王老师"): fall back to a shorter one.
    if (fullNameAt(text, i).length === len && (i === 0 || !SURNAMES.has(text.charAt(i - 1)) || NOT_GIVEN.has(text.charAt(i - 1)))) return i;
  }
  const single = text[end - 1] ?? '';
  if (!SURNAMES.has(single) || NEVER_ALONE.has(single)) return -1;
  // "对方老师": an everyday-word surname alone counts only at the start of a clause.
  return AMBIGUOUS_SURNAMES.has(single) && HAN.test(text[end - 2] ?? '') ? -1 : end - 1;
}

// "Alex Chen (陈亚历)", "王小明（Tom Wang）": the same person's name in the other script, in brackets right after.
const ALIAS = new RegExp(`^\\s*[(（]\\s*([\\u4e00-\\u9fff]{2,4}|${FULL})\\s*[)）]`, 'u');

function aliasesOf(text: string, names: PiiSpan[]): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const n of names) {
    const m = ALIAS.exec(text.slice(n.end, n.end + 40));
    if (!m) continue;
    const alias = m[1] ?? ''; // ALIAS captures the alias
    // Only across scripts: "(staff engineer)" after a Latin name is a role, not a second name.
    if (HAN.test(alias.charAt(0)) === HAN.test(n.value.charAt(0)) || (HAN.test(alias.charAt(0)) && !surnameAt(alias, 0))) continue;
    const start = n.end + m[0].indexOf(alias);
    out.push(makeSpan(text, 'PERSON', start, start + alias.length, n.confidence, 'context:name-alias'));
  }
  return out;
}

/** Person names: cued ones by default, the weaker English heuristics only when `all` is set. */
export function detectNames(text: string, all = false, prefilter = true): PiiSpan[] {
  const out = detectLatinNames(text, all, prefilter);
  if (HAN.test(text)) out.push(...detectChineseNames(text));
  out.push(...aliasesOf(text, out));
  return out;
}
