// Identifiers of Chinese messaging accounts and travel documents. A QQ number or a passport number is
// just a digit run or a short code without the word that introduces it, so these need their cue words;
// only the "wxid_" form of a WeChat id is specific enough on its own.
import type { PiiSpan } from '../types';
import { makeSpan } from '../util';

/** "QQ", "扣扣", "企鹅号"; not QQ groups, QQ mail, QQ music and the other products. */
const QQ_CUE = /(?<![A-Za-z])(?:qq|扣扣|企鹅|Q号)(?!群|空间|音乐|等级|飞车|浏览器|会员|钱包|邮箱|游戏|堂|[A-Za-z])/giu;
/** Words between a cue and its value: "号码是", "number:", "ID =", "同号", "/微信". */
const FILLER =
  /\s*(?:(?:[/、&]\s*(?:微信|wechat|weixin|vx|wx|手机|电话|tel|phone)号?|号码|帐号|账号|号|number|no\.?|num|id|#|is|was|同号|也是|是|为|:|=|\(|（|\[|【)\s*){0,4}/iy;
// Digits as typed, possibly grouped ("2837 4650 19", "2837-465-019"): 5 to 11 of them, checked in code.
const QQ_NUMBER = /[1-9]\d{1,10}(?:[ -]\d{2,10}){0,4}(?![\d@A-Za-z_]|\.\d)/y;
const qqDigits = (s: string) => s.replace(/\D/g, '').length;
const LIST_NEXT = /\s*(?:[,，、/]\s*(?:or\s|或|和|及)?|or\s|或|和|及)\s*(?=[1-9]\d{4,10}(?![\d@A-Za-z_]|\.\d))/iy;

/** Runs a sticky regex at `at`; returns the match or null. */
function stickyAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

export function detectQq(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const cue of text.matchAll(QQ_CUE)) {
    let at = cue.index + cue[0].length;
    at += stickyAt(FILLER, text, at)?.[0].length ?? 0;
    if (/\d/.test(text[at - 1] ?? '')) continue; // "QQ2 12345" is something else
    for (;;) {
      const m = stickyAt(QQ_NUMBER, text, at);
      if (!m) break;
      // Too many digits for one grouped number: the first group alone ("QQ 12345678 13812345678").
      const value = qqDigits(m[0]) > 11 ? (m[0].split(/[ -]/)[0] ?? '') : m[0];
      if (qqDigits(value) < 5 || qqDigits(value) > 11) break;
      out.push(makeSpan(text, 'QQ', at, at + value.length, 0.8, 'context:qq'));
      at += value.length;
      const next = stickyAt(LIST_NEXT, text, at);
      if (!next) break;
      at += next[0].length;
    }
  }
  return out;
}

const WXID = /(?<![A-Za-z0-9_])wxid_[A-Za-z0-9]{6,24}(?![A-Za-z0-9_])/gi;
const WECHAT_CUE = /(?:微信|威信|薇信|加微|(?<![A-Za-z])(?:wechat|weixin|wx|vx|v信|加v|微x)(?![A-Za-z]))/giu;
// WeChat's rule: 6-20 letters, digits, "_" or "-", starting with a letter. Old accounts use a QQ number or a phone.
const WECHAT_ID = /(?:[A-Za-z][A-Za-z0-9_-]{5,19}|[1-9]\d{4,10})(?![A-Za-z0-9_@-]|\.[A-Za-z]|:\/\/)/y;

// "wechat: enabled" in a config or a status line is a setting, not an id.
const CONFIG_WORDS =
  /^(?:enabled?|disabled?|required|optional|default|unknown|none|null|true|false|pending|verified|unverified|connected|disconnected|available|unavailable|active|inactive|login|logout|account|official|payment|support)$/i;

export function detectWechat(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of text.matchAll(WXID)) out.push(makeSpan(text, 'WECHAT', m.index, m.index + m[0].length, 0.95, 'pattern:wxid'));
  for (const cue of text.matchAll(WECHAT_CUE)) {
    const afterCue = cue.index + cue[0].length;
    const filler = stickyAt(FILLER, text, afterCue)?.[0] ?? '';
    const at = afterCue + filler.length;
    const m = stickyAt(WECHAT_ID, text, at);
    if (!m || /^wxid_/i.test(m[0])) continue;
    const id = m[0];
    // A plain word ("WeChat is great") is not an id unless a separator or "号"/"ID" says one follows.
    if (/^[A-Za-z]+$/.test(id) && (!/[:：=号]|id/i.test(filler) || CONFIG_WORDS.test(id))) continue;
    if (/^\d+$/.test(id)) {
      out.push(makeSpan(text, 'WECHAT', at, at + id.length, 0.7, 'context:wechat-number'));
      continue;
    }
    out.push(makeSpan(text, 'WECHAT', at, at + id.length, 0.8, 'context:wechat'));
  }
  return out;
}

/**
 * Passports of the PRC (G or E + 8 digits; E + a letter other than I/O + 7 digits since the E series
 * ran out; DE/SE/PE + 7 digits for diplomatic, service and public-affairs), Hong Kong (K + 8) and
 * mainland travel permits (C + 8). Codes this short are also part and train numbers: only with a cue.
 */
const PASSPORT = /(?<![A-Za-z0-9])(?:[EGKC]\d{8}|[EC][A-HJ-NP-Z]\d{7}|[DSP]E\d{7})(?![A-Za-z0-9])/gi;
const PASSPORT_CUE = /护照|passport|旅行证件|travel\s+document|通行证|证件号/i;

/** Right after "护照号"/"passport no.": other countries' shapes too (one or two letters and 6-9 digits, or 9 digits). */
const PASSPORT_TIGHT =
  /(?:护照|passport)(?:\s*(?:号码|号|编号|no\.?|number|num|#|:|：|=|是|为|is))*\s*([A-Z]{1,2}\d{6,9}|\d{9})(?![A-Za-z0-9])/gi;

export function detectPassports(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (!PASSPORT_CUE.test(text)) return out;
  for (const m of text.matchAll(PASSPORT_TIGHT)) {
    const number = m[1] ?? ''; // PASSPORT_TIGHT always captures the number
    const start = m.index + m[0].length - number.length;
    out.push(makeSpan(text, 'CN_PASSPORT', start, start + number.length, 0.75, 'context:passport-any'));
  }
  for (const m of text.matchAll(PASSPORT)) {
    const before = text.slice(Math.max(0, m.index - 48), m.index);
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 16);
    const line = before.slice(before.lastIndexOf('\n') + 1);
    if (!PASSPORT_CUE.test(line) && !PASSPORT_CUE.test(after.split('\n')[0] ?? '')) continue;
    out.push(makeSpan(text, 'CN_PASSPORT', m.index, m.index + m[0].length, 0.85, 'context:passport'));
  }
  return out;
}
