import type { PiiSpan, PiiType } from '../types';
import { allMatches, makeSpan, sequentialShare, shannonEntropy } from '../util';

/**
 * Well-known token formats: the prefix alone makes them near-certain. `minRun` is the prefilter: every match
 * holds at least that many consecutive characters of [A-Za-z0-9_-] (the prefix and the required repeats of
 * each pattern added up; each pattern's characters are all in that set), so a text whose longest such run is
 * shorter cannot match. The two patterns with other characters (a webhook URL, a bearer value that may hold
 * "." "~" "+" "/" "=") have a literal `cue` the match must contain instead.
 */
const KNOWN_TOKENS: { name: string; re: RegExp; confidence: number; minRun?: number; cue?: RegExp }[] = [
  { name: 'aws-access-key', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g, confidence: 0.95, minRun: 4 + 16 },
  { name: 'github-token', re: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, confidence: 0.97, minRun: 4 + 36 },
  { name: 'github-pat', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, confidence: 0.97, minRun: 11 + 22 },
  { name: 'gitlab-token', re: /\bglpat-[A-Za-z0-9_-]{20,}\b/g, confidence: 0.95, minRun: 6 + 20 },
  { name: 'slack-token', re: /\bxox[baprs]-[A-Za-z0-9-]{10,}/g, confidence: 0.95, minRun: 5 + 10 },
  { name: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]+/g, confidence: 0.9, cue: /hooks\.slack\.com/ },
  { name: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, confidence: 0.95, minRun: 8 + 16 },
  { name: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, confidence: 0.95, minRun: 4 + 35 },
  { name: 'openai-key', re: /\bsk-(?:proj-|svcacct-|admin-|ant-(?:api03-)?)?[A-Za-z0-9_-]{20,}/g, confidence: 0.9, minRun: 3 + 20 },
  { name: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, confidence: 0.9, minRun: 3 + 8 },
  { name: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g, confidence: 0.95, minRun: 4 + 36 },
  { name: 'huggingface-token', re: /\bhf_[A-Za-z]{34}\b/g, confidence: 0.9, minRun: 3 + 34 },
  { name: 'bearer', re: /(?<=\b(?:Bearer|Basic|Token)\s+)[A-Za-z0-9._~+/=-]{16,}/g, confidence: 0.85, cue: /Bearer|Basic|Token/ },
];

const PRIVATE_KEY_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/g;

/**
 * From BEGIN through the matching END line. A pasted key often lacks its END line: then the block runs
 * through the header and base64 lines that follow, not through the rest of the conversation.
 */
function privateKeyBlocks(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  let from = 0;
  for (const m of allMatches(PRIVATE_KEY_BEGIN, text)) {
    if (m.index < from) continue;
    const endMarker = `-----END ${m[1]}PRIVATE KEY${m[2] ?? ''}-----`;
    const endAt = text.indexOf(endMarker, m.index);
    let end: number;
    if (endAt >= 0) end = endAt + endMarker.length;
    else {
      end = m.index + m[0].length;
      const body = /\r?\n(?:[\w-]+: [^\n]*|[A-Za-z0-9+/=]{4,}|)(?=\r?\n|$)/y;
      for (body.lastIndex = end; body.exec(text); body.lastIndex = end) {
        if (body.lastIndex === end) break;
        end = body.lastIndex;
      }
      while (/\s/.test(text[end - 1] ?? '')) end--;
    }
    out.push(makeSpan(text, 'PRIVATE_KEY', m.index, end, 0.99, endAt >= 0 ? 'pattern:private-key' : 'pattern:private-key-unterminated'));
    from = end;
  }
  return out;
}

/** The seed's redactPatterns are key names; "-----BEGIN.*-----" is the one that describes a block. */
export const DEFAULT_KEY_PATTERNS = ['api[_-]?key', 'password', 'token', 'secret'];

const BUILTIN_KEYWORDS =
  'passw(?:or)?d|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|client[_-]?secret|signing[_-]?key|encryption[_-]?key|密码|口令|密钥|秘钥|令牌';
const PASSWORD_KEY = /passw|pwd|passphrase|密码|口令/i;

/** Keys whose values are public by design. */
const PUBLIC_KEY = /public|^pub[_.-]|csrf|xsrf/i;
/** Keys that name metadata about a secret, not the secret (secret_name, token_url, credentialsId...). */
const EXCLUDED_KEY =
  /(?:^|[_.\-\s]|[a-z](?=[A-Z]))(?:ids?|uuid|guid|url|uri|endpoint|host|name|file|path|dir|type|size|length|len|version|format|mode|field|label|hint|prompt|placeholder|policy|expiry|expires?|ttl|timeout|count|enabled|required|header|variable|param|env|location|rules?|pattern|regex|length|min|max|tokens|budget|limit|usage|cost)$|Id$|ID$|Tokens$|public|^pub[_.-]|csrf|xsrf|hash(?!ed_secret)|checksum|chksum|sha\d*$|md5|srcrev|^rev/i;

const PLACEHOLDER =
  /^(?:x{2,}|\*+|\.{2,}|-+|_+|#+|0+|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\(.*\)|\$.*|%[^%]*%|your[_-]?\S*|my[_-]?\S*|changeme|change[_-]?me|change[_-]?this|example\S*|sample\S*|test|testing|dummy\S*|fake|placeholder|null|none|nil|undefined|true|false|todo|tbd|redacted|hidden|secret|password|passwd|token|api[_-]?key|string|str|value|required|optional|foo|bar|baz|qux|\.\.\.|…)$/i;

function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (PLACEHOLDER.test(v)) return true;
  if (/^[A-Z]+(?:_[A-Z0-9]+)*$/.test(v)) return true; // an environment variable name such as YOUR_API_KEY
  if (/^[A-Za-z_$][\w$]*(?:[.:]{1,2}[A-Za-z_$][\w$]*)+$/.test(v) && !/\d/.test(v)) return true; // obj.prop, module:fn
  if (/^(?:new\s+)?[A-Za-z_$][\w$.]*\(|\)$|process\.env|os\.environ|getenv/i.test(v)) return true; // code
  if (/^(.)\1+$/.test(v)) return true;
  // A lowercase slug such as "cmp2-qat-1208358310" names a resource; a UUID (all hex) may be a key.
  if (/^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(v) && !isUuid(v) && v.split('-').some((w) => /^[a-z]{3,}$/.test(w) && /[g-z]/.test(w))) return true;
  return false;
}

function isUuid(v: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
}

/** A value assigned to a secret-named key: long or mixed enough to be a real one. */
function looksLikeKeyedSecret(value: string, password: boolean): boolean {
  if (isPlaceholder(value)) return false;
  if (/\s/.test(value) && !password) return false;
  if (password) return value.length >= 4 && !/\s{2,}/.test(value) && value.length <= 128;
  if (value.length < 8) return false;
  // Keys and tokens are ASCII; a value with Chinese words in it is a message ("token_here": "分析器预期…").
  if (/[\u4e00-\u9fff][^\u4e00-\u9fff]*[\u4e00-\u9fff]/.test(value)) return false;
  if (/^\d+$/.test(value) && value.length < 16) return false; // a count or a port, not a key
  if (sequentialShare(value) > 0.9) return false; // "abcdefgh", "12345678"
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(value)).length;
  return shannonEntropy(value) >= 2.8 || classes >= 2;
}

/** A value with no telling key: only long random-looking base64/alphanumeric strings. */
function looksLikeBareSecret(value: string, minLength: number): boolean {
  if (value.length < minLength || !/^[A-Za-z0-9+/=_-]+$/.test(value)) return false;
  if (isUuid(value) || /^[0-9a-fA-F]+$/.test(value)) return false;
  if ((value.match(/[-_]/g) ?? []).length >= 2) return false; // identifiers-like-this
  if (!/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/\d/.test(value)) return false;
  if (sequentialShare(value) > 0.3) return false;
  return shannonEntropy(value.replace(/=+$/, '')) >= 4.0;
}

/** A quoted hex literal of 32+ digits (an MD5-length key or longer) that does not look like a pattern. */
function looksLikeHexSecret(value: string): boolean {
  return (
    /^[0-9a-fA-F]{32,}$/.test(value) &&
    /[a-fA-F]/.test(value) &&
    /\d/.test(value) &&
    sequentialShare(value) < 0.3 &&
    shannonEntropy(value) >= 3.3
  );
}

// key (bare, quoted) then = : := => or "," (a call like getEnv("api_token", "...")), then the value.
const ASSIGNMENT =
  /(?<key>"[^"\s]{1,80}"|'[^'\s]{1,80}'|[A-Za-z_$\u4e00-\u9fff][\w$.\-\u4e00-\u9fff]{0,80})[ \t]*(?<op>=>|:=|==|=|:|：|,)[ \t]*(?:!!?\w+[ \t]+)?(?<val>"[^"\n]{0,512}"|'[^'\n]{0,512}'|`[^`\n]{0,512}`|[^\s"'`,;，。；)\]}]{1,512})/gu;

// "my password is hunter2", "the API key was 'q8Zr...'", "密码是abc123".
const PROSE_SECRET =
  /(?<key>\b(?:password|passcode|passphrase|pwd|pin|api[ _-]?key|access[ _-]?key|token|secret)\b|密码|口令|密钥)(?:[ \t]*(?:is|was|是|为)[ \t]*|(?<=密码|口令|密钥)[ \t]+)(?<val>"[^"\n]{1,128}"|'[^'\n]{1,128}'|“[^”\n]{1,128}”|[^\s,;，。；"']{1,128})/giu;
// curl -u user:password / --user user:password
const CURL_USER = /(?:^|\s)(?:-u|--user)\s+['"]?[^\s:'"]{1,64}:([^\s'"]{1,128})/g;

/**
 * Secrets and credentials. `prefilter` (on unless a test compares against the unfiltered detector) skips each
 * pass whose necessary condition, documented beside it, the text does not meet: same spans, less work.
 */
export function detectSecrets(text: string, redactPatterns?: string[], prefilter = true): PiiSpan[] {
  const out: PiiSpan[] = [];
  const runs = prefilter ? longestTokenRuns(text) : { word: Infinity, base64: Infinity };
  // PRIVATE_KEY_BEGIN starts with this literal
  if (!prefilter || text.includes('-----BEGIN ')) out.push(...privateKeyBlocks(text));
  for (const t of KNOWN_TOKENS) {
    if (t.minRun !== undefined && runs.word < t.minRun) continue;
    if (prefilter && t.cue && !t.cue.test(text)) continue;
    for (const m of allMatches(t.re, text)) {
      out.push(makeSpan(text, 'API_KEY', m.index, m.index + m[0].length, t.confidence, `pattern:${t.name}`));
    }
  }
  const { keyword, blockPatterns } = compileKeyPatterns(redactPatterns);
  out.push(...beginBlockMarkers(text, blockPatterns));
  // Values already judged by their key: the key-less passes below must not overrule that judgement.
  // judged stays null when assignedSecrets is skipped: nothing was judged, and no buffer is allocated
  let judged: Uint8Array | null = null;
  if (!prefilter || mayHaveAssignment(text)) {
    judged = new Uint8Array(text.length);
    out.push(...assignedSecrets(text, keyword, judged));
  }
  if (!prefilter || PROSE_KEYWORD.test(text)) out.push(...proseSecrets(text, judged));
  // CURL_USER needs "-u" or "--user", and "--user" holds "-u"
  if (!prefilter || text.includes('-u')) {
    for (const m of allMatches(CURL_USER, text)) {
      const user = m[1] ?? ''; // CURL_USER captures the credentials
      const start = m.index + m[0].length - user.length;
      if (!isPlaceholder(user)) out.push(makeSpan(text, 'PASSWORD', start, start + user.length, 0.8, 'pattern:curl-user'));
    }
  }
  // both key-less patterns need 20 (quoted) or 32 (bare) characters of [A-Za-z0-9+/=_-] in a row
  if (runs.base64 >= 20) out.push(...keylessTokens(text, judged));
  return out;
}

/**
 * The prefilter of assignedSecrets, a necessary condition of an ASSIGNMENT match it would act on. Such a match
 * has an operator starting with = : ： or "," (a "," only counts with a quoted key, so only when the text has
 * a quote), right after [ \t]* and a key. The key ends with a quote, or is a run of key characters with a start
 * character at most 81 characters before the operator. Checked by hand from each operator backwards: the
 * regex itself retries every word of prose that merely contains a colon.
 */
function mayHaveAssignment(text: string): boolean {
  let quotes = -1; // unknown until a comma asks
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c) {
      if (quotes < 0) quotes = /["']/.test(text) ? 1 : 0;
      if (!quotes) continue;
    } else if (c !== 0x3d && c !== 0x3a && c !== 0xff1a) continue;
    let j = i - 1;
    while (j >= 0 && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09)) j--;
    if (j < 0) continue;
    const last = text.charCodeAt(j);
    if (last === 0x22 || last === 0x27) return true;
    for (let k = j; k >= 0 && j - k <= 80 && isKeyChar(text.charCodeAt(k)); k--) if (isKeyStart(text.charCodeAt(k))) return true;
  }
  return false;
}

/** ASSIGNMENT's bare key: a start character [A-Za-z_$\u4e00-\u9fff], then [\w$.\-\u4e00-\u9fff] (\w is ASCII). */
function isKeyStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || (c >= 0x4e00 && c <= 0x9fff);
}

function isKeyChar(c: number): boolean {
  return isKeyStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;
}

/**
 * The prefilter of proseSecrets: each of PROSE_SECRET's key words holds one of these (password, passcode and
 * passphrase hold "pass"; "api key" holds "api"), with the same flags so case folding agrees.
 */
const PROSE_KEYWORD = /pass|pwd|pin|api|access|token|secret|密码|口令|密钥/iu;

/**
 * The longest run of [A-Za-z0-9_-] (`word`, every known token's alphabet) and of [A-Za-z0-9+/=_-] (`base64`,
 * the key-less tokens' alphabet) in the text, in one pass.
 */
function longestTokenRuns(text: string): { word: number; base64: number } {
  let word = 0;
  let base64 = 0;
  let w = 0;
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? TOKEN_CHAR[c]! : 0; // TOKEN_CHAR has 128 entries
    w = kind === 1 ? w + 1 : 0;
    b = kind ? b + 1 : 0;
    if (w > word) word = w;
    if (b > base64) base64 = b;
  }
  return { word, base64 };
}

/** 1 for [A-Za-z0-9_-], 2 for the other characters of [A-Za-z0-9+/=_-], 0 for the rest of ASCII. */
const TOKEN_CHAR = new Uint8Array(128).map((_, c) =>
  /[A-Za-z0-9_-]/.test(String.fromCharCode(c)) ? 1 : /[+/=]/.test(String.fromCharCode(c)) ? 2 : 0,
);

/** The configured key patterns: "-----BEGIN" markers apart, the rest joined with the built-in keywords. */
function compileKeyPatterns(redactPatterns?: string[]): { keyword: RegExp; blockPatterns: RegExp[] } {
  // Compiled once per configuration, not once per text: the same few lists come back for every text of a run.
  if (redactPatterns === lastKeyPatterns.input && lastKeyPatterns.compiled) return lastKeyPatterns.compiled;
  const key = (redactPatterns ?? DEFAULT_KEY_PATTERNS).join('\u0000');
  let compiled = compiledKeyPatterns.get(key);
  if (!compiled) {
    if (compiledKeyPatterns.size >= 32) compiledKeyPatterns.clear();
    compiled = compileKeyPatternsOnce(redactPatterns);
    compiledKeyPatterns.set(key, compiled);
  }
  lastKeyPatterns.input = redactPatterns;
  lastKeyPatterns.compiled = compiled;
  return compiled;
}

/** The last list asked for, by identity: a run passes the same array for every text. */
const lastKeyPatterns: { input?: string[]; compiled?: { keyword: RegExp; blockPatterns: RegExp[] } } = {};

const compiledKeyPatterns = new Map<string, { keyword: RegExp; blockPatterns: RegExp[] }>();

function compileKeyPatternsOnce(redactPatterns?: string[]): { keyword: RegExp; blockPatterns: RegExp[] } {
  const keyPatterns = [BUILTIN_KEYWORDS];
  const blockPatterns: RegExp[] = [];
  for (const p of redactPatterns ?? DEFAULT_KEY_PATTERNS) {
    if (p.startsWith('-----')) blockPatterns.push(safeRegex(p, 'g'));
    else keyPatterns.push(`(?:${p})`);
  }
  return { keyword: safeRegex(keyPatterns.join('|'), 'i'), blockPatterns };
}

/** "-----BEGIN X-----" lines other than private keys (those are matched whole) and public material. */
function beginBlockMarkers(text: string, blockPatterns: RegExp[]): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const re of blockPatterns) {
    for (const m of allMatches(re, text)) {
      if (/PRIVATE KEY/.test(m[0]) || !m[0]) continue;
      if (/CERTIFICATE|PUBLIC KEY/.test(m[0])) continue;
      out.push(makeSpan(text, 'API_KEY', m.index, m.index + m[0].length, 0.6, 'pattern:begin-block'));
    }
  }
  return out;
}

const isJudged = (judged: Uint8Array | null, start: number, end: number) => judged !== null && judged.subarray(start, end).includes(1);

/** `key = value` and `"key": "value"` pairs, judged by their key; marks every value looked at in `judged`. */
function assignedSecrets(text: string, keyword: RegExp, judged: Uint8Array): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of allMatches(ASSIGNMENT, text)) {
    const g = m.groups as { key: string; op: string; val: string }; // named groups of ASSIGNMENT, none optional
    const key = g.key.replace(/^["']|["']$/g, '');
    // getEnv("api_token", "...") passes a key and its value; a bare comma does not.
    if (g.op === ',' && !(/^["']/.test(g.key) && /^["']/.test(g.val) && /\d/.test(g.val) && shannonEntropy(g.val) >= 3)) continue;
    if (g.op === '==') continue;
    let value = g.val;
    let valStart = m.index + m[0].length - value.length;
    if (/^["'`]/.test(value)) {
      value = value.slice(1, -1);
      valStart += 1;
    } else {
      value = value.replace(/[.。]+$/, '');
    }
    if (!value) continue;
    judged.fill(1, valStart, valStart + value.length);
    const keyed = keyword.test(key) && !EXCLUDED_KEY.test(key);
    const password = keyed && PASSWORD_KEY.test(key);
    const type: PiiType = password ? 'PASSWORD' : 'API_KEY';
    if (keyed && looksLikeKeyedSecret(value, password)) {
      out.push(
        makeSpan(text, type, valStart, valStart + value.length, password ? 0.8 : 0.75, `keyword:${password ? 'password' : 'secret'}`),
      );
    } else if (!PUBLIC_KEY.test(key) && looksLikeBareSecret(value, EXCLUDED_KEY.test(key) ? 40 : 20)) {
      // Identifiers are short; a 40+ character random value under an "id" key is a credential anyway.
      out.push(makeSpan(text, 'API_KEY', valStart, valStart + value.length, 0.55, 'entropy:assignment'));
    }
  }
  return out;
}

/** "my password is hunter2" and its Chinese forms. */
function proseSecrets(text: string, judged: Uint8Array | null): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of allMatches(PROSE_SECRET, text)) {
    const g = m.groups as { key: string; val: string }; // named groups of PROSE_SECRET, none optional
    let value = g.val;
    let start = m.index + m[0].length - value.length;
    const quoted = /^["'“‘]/.test(value);
    if (quoted) {
      value = value.slice(1, -1);
      start += 1;
    } else value = value.replace(/[.。]+$/, ''); // a sentence's full stop; "!" and "?" are common in passwords
    if (isJudged(judged, start, start + value.length) || !value || value.length < 4 || isPlaceholder(value)) continue;
    // Unquoted prose ("the password is incorrect") needs something no ordinary word has.
    const cjk = (value.match(/[\u4e00-\u9fff]/g) ?? []).length;
    if (!quoted && (!/[\d\W_]|[a-z][A-Z]|[A-Z].*[a-z].*[A-Z]/u.test(value) || cjk * 2 > value.length)) continue;
    const password = PASSWORD_KEY.test(g.key) || /^pin$/i.test(g.key);
    if (!password && !looksLikeKeyedSecret(value, false)) continue;
    out.push(makeSpan(text, password ? 'PASSWORD' : 'API_KEY', start, start + value.length, 0.7, 'keyword:prose'));
  }
  return out;
}

const QUOTED_LITERAL = /(["'`])([A-Za-z0-9+/=_-]{20,})\1/g;
const BARE_TOKEN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/=_-])/g;

/** Quoted literals and free-standing tokens with no key at all. */
function keylessTokens(text: string, judged: Uint8Array | null): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of allMatches(QUOTED_LITERAL, text)) {
    const literal = m[2] ?? '';
    const start = m.index + 1;
    const end = start + literal.length;
    if (isJudged(judged, start, end)) continue;
    if (looksLikeBareSecret(literal, 20)) out.push(makeSpan(text, 'API_KEY', start, end, 0.5, 'entropy:quoted'));
    else if (looksLikeHexSecret(literal)) out.push(makeSpan(text, 'API_KEY', start, end, 0.4, 'entropy:quoted-hex'));
  }
  for (const m of allMatches(BARE_TOKEN, text)) {
    if (isJudged(judged, m.index, m.index + m[0].length)) continue;
    if (looksLikeBareSecret(m[0], 32) && shannonEntropy(m[0]) >= 4.3) {
      out.push(makeSpan(text, 'API_KEY', m.index, m.index + m[0].length, 0.45, 'entropy:token'));
    }
  }
  return out;
}

function safeRegex(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch {
    return new RegExp(source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  }
}
