import type { PiiSpan } from '../types';
import { allMatches, hasDigits, isAsciiWordAt, makeSpan } from '../util';

function validIpv4(s: string): boolean {
  const parts = s.split('.');
  // Leading zeros ("03.93.92.16") are how French phone numbers are written, not how addresses are.
  return parts.length === 4 && parts.every((p) => /^(?:0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

function validHextet(h: string): boolean {
  return /^[0-9A-Fa-f]{1,4}$/.test(h);
}

/** RFC 4291 text forms: eight hextets, "::" compression once, an embedded IPv4 tail. */
export function validIpv6(s: string): boolean {
  if (!s.includes(':')) return false;
  let groups = 8;
  let body = s;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!validIpv4(tail)) return false;
    groups = 6;
    body = s.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const split = (h: string) => (h === '' ? [] : h.split(':'));
  if (halves.length === 2) {
    const [leftHalf = '', rightHalf = ''] = halves;
    const left = split(leftHalf);
    const right = split(rightHalf);
    return left.length + right.length <= groups - 1 && [...left, ...right].every(validHextet);
  }
  const all = split(body);
  return all.length === groups && all.every(validHextet);
}

const VERSION_CONTEXT = /(?:version|ver\.?|v|release|build|版本)\s*[:：]?\s*$/i;

// A candidate is a maximal run of hex digits, colons and dots with at least two colons.
const IPV6_RUN = /[0-9A-Fa-f:.]{2,}/g;
const IPV4 = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/g;

function cidrEnd(text: string, end: number, max: number): number {
  const m = /^\/(\d{1,3})(?!\d)/.exec(text.slice(end, end + 5));
  return m && Number(m[1]) <= max ? end + m[0].length : end;
}

/**
 * Prefilters: an IPv6 candidate is skipped unless its run holds two colons, so the text must hold two; an IPv4
 * match has four digits and three dots.
 */
export function detectIps(text: string, prefilter = true): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (!prefilter || text.indexOf(':') !== text.lastIndexOf(':')) detectIpv6(text, out);
  if (!prefilter || (text.includes('.') && hasDigits(text, 4))) detectIpv4(text, out);
  return out;
}

function detectIpv6(text: string, out: PiiSpan[]): void {
  for (const m of allMatches(IPV6_RUN, text)) {
    let s = m[0];
    if (s.length > 60 || s.indexOf(':') === s.lastIndexOf(':')) continue;
    const start = m.index;
    while (s.endsWith('.') || (s.endsWith(':') && !s.endsWith('::'))) s = s.slice(0, -1);
    if (!s || isAsciiWordAt(text, start - 1) || isAsciiWordAt(text, start + s.length)) continue;
    if (!validIpv6(s)) continue;
    let end = start + s.length;
    const zone = /^%[A-Za-z0-9]+/.exec(text.slice(end, end + 20));
    if (zone) end += zone[0].length;
    end = cidrEnd(text, end, 128);
    // A bare "::" is the unspecified address: only when it stands alone, and barely worth a placeholder.
    const confidence = s === '::' ? 0.1 : 0.8;
    if (s === '::' && (/[^\s=,;([]/.test(text[start - 1] ?? ' ') || !/^[\s,;)\]/]?$/.test(text[end] ?? ''))) continue;
    out.push(makeSpan(text, 'IP_ADDRESS', start, end, confidence, 'validate:ipv6'));
  }
}

function detectIpv4(text: string, out: PiiSpan[]): void {
  for (const m of allMatches(IPV4, text)) {
    const start = m.index;
    const endRaw = start + m[0].length;
    if (isAsciiWordAt(text, start - 1) || text[start - 1] === '.' || isAsciiWordAt(text, endRaw)) continue;
    if (!validIpv4(m[0])) continue;
    if (VERSION_CONTEXT.test(text.slice(Math.max(0, start - 12), start))) continue;
    out.push(makeSpan(text, 'IP_ADDRESS', start, cidrEnd(text, endRaw, 32), 0.8, 'validate:ipv4'));
  }
}

// scheme://user:password@host[:port]; the password may not contain whitespace, "/" or "@".
const URL_CREDENTIALS = /\b[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/([^\s:@/?#'"<>]{1,128}):([^\s/'"<>]{1,256})@[A-Za-z0-9.[\]:_-]{1,256}/g;

export function detectUrlCredentials(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (!text.includes('://')) return out;
  for (const m of allMatches(URL_CREDENTIALS, text)) {
    const password = m[2] ?? ''; // URL_CREDENTIALS captures the password
    if (/^(\*+|x+|<[^>]*>|\$\{[^}]*\}|\{[^}]*\}|password|pass|secret)$/i.test(password)) continue;
    let end = m.index + m[0].length;
    while (/[.:\]]/.test(text[end - 1] ?? '')) end--;
    out.push(makeSpan(text, 'URL_CREDENTIALS', m.index, end, 0.95, 'pattern:url-credentials'));
  }
  return out;
}
