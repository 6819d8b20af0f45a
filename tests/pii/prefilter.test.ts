// The detectors' prefilters (issue 16) only skip work: with them on, every span is the one the detectors find
// running every pattern on every text. Compared on our labelled sets, the generated set and its invisible-character
// variant, and random texts built from the fragments each prefilter looks for, around each prefilter's threshold.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFixture, withInvisible } from '../../bench/pii-eval';
import { generatedCases, mulberry32 } from '../../bench/pii-generated';
import { DEFAULT_REDACT_PATTERNS } from '../../src/core/dataset/config';
import { detectPii, type DetectOptions } from '../../src/core/pii/index';
import { allMatches } from '../../src/core/pii/util';
import { repoRoot } from '../helpers/workspace';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// What the prefilters test for (cue words, operators, digits, colons, token prefixes), and what folds into them
// (full-width forms, the long s and the Kelvin sign under case folding, invisible characters).
const FRAGMENTS = [
  'password',
  'Passcode is ',
  'PIN ',
  'api key was ',
  'access_key',
  'token',
  'secret',
  '密码是',
  '口令 ',
  'paſſword is ',
  'api_key=',
  'API_KEY: ',
  '"token": "',
  "'secret', '",
  ' = ',
  ': ',
  ':',
  '：',
  ', ',
  '"',
  "'",
  '=>',
  ':=',
  '-u ',
  '--user admin:',
  'curl -u bob:',
  'ghp_',
  'github_pat_',
  'glpat-',
  'xoxb-',
  'sk_live_',
  'AIza',
  'sk-proj-',
  'eyJhbGciOiJIUzI1NiJ9.',
  'eyJ',
  'npm_',
  'hf_',
  'AKIA',
  'Bearer ',
  'Token ',
  'https://hooks.slack.com/services/',
  '-----BEGIN RSA PRIVATE KEY-----\n',
  '-----BEGIN CERTIFICATE-----',
  '-----END RSA PRIVATE KEY-----',
  'postgres://user:',
  '@',
  'a.b@example.com',
  '::',
  '::1',
  'fe80::',
  '2001:db8:',
  '.',
  '192.168.',
  '10.0.0.',
  'GB82',
  'gb82 ',
  'DE89',
  'Mr ',
  'Dr. ',
  'Prof ',
  'My name is ',
  'my full name is ',
  'Name: ',
  'Contact=',
  'call me ',
  "I'm ",
  'Dear ',
  'named ',
  'Anna ',
  'Tom Lee',
  'Šárka ',
  '我叫',
  '联系人：',
  '负责人 ',
  '王小明',
  '欧阳娜娜',
  '先生',
  '老师',
  'QQ',
  '微信',
  'wxid_',
  '护照',
  'passport ',
  'G',
  'E',
  'phone: ',
  'tel:',
  '电话',
  '+86 ',
  '+1 ',
  '(555) ',
  '138',
  '0',
  '-',
  ' ',
  '\n',
  '\t',
  'x',
  '\u200b',
  '\u00ad',
  'K',
  '１２３',
  '４１１１',
  'card ',
  '身份证',
  '110101',
  'X',
];

function randomText(r: () => number): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(r() * 8);
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (roll < 0.45)
      parts.push(FRAGMENTS[Math.floor(r() * FRAGMENTS.length)]!); // r() < 1
    else if (roll < 0.7) parts.push(String(Math.floor(r() * 10 ** (1 + Math.floor(r() * 19)))));
    else if (roll < 0.9) {
      // runs of token characters around the known tokens' lengths (11 to 40) and the key-less ones' (20, 32)
      const len = 6 + Math.floor(r() * 42);
      let run = '';
      for (let k = 0; k < len; k++) run += ALNUM[Math.floor(r() * ALNUM.length)]!;
      parts.push(run);
    } else
      parts.push(Array.from({ length: 1 + Math.floor(r() * 4) }, () => 'the quick brown fox'.split(' ')[Math.floor(r() * 4)]).join(' '));
  }
  return parts.join(r() < 0.5 ? '' : ' ');
}

const repeat = (n: number) => ALNUM.repeat(2).slice(7, 7 + n);
function luhnComplete(prefix: string): string {
  for (let d = 0; d < 10; d++) {
    let sum = 0;
    const s = prefix + d;
    for (let i = 0; i < s.length; i++) {
      let x = Number(s[s.length - 1 - i]);
      if (i % 2) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return s;
  }
  return prefix;
}

// Each prefilter's threshold met exactly: the shortest token of each format, the fewest digits, the cue words.
const AT_THRESHOLD = [
  `key AKIA${'A1B2C3D4E5F6G7H8'} here`,
  `ghp_${repeat(36)}`,
  `github_pat_${repeat(22)}`,
  `glpat-${repeat(20)}`,
  `xoxb-${repeat(10)}`,
  `sk_live_${repeat(16)}`,
  `AIza${repeat(35)}`,
  `sk-${repeat(20)}`,
  `eyJ${repeat(8)}.eyJ${repeat(8)}.${repeat(8)}`,
  `npm_${repeat(36)}`,
  `hf_${'abcdefghijklmnopqrstuvwxyzABCDEFGH'}`,
  'Authorization: Bearer a.b.c.d.e.f.g.h.',
  'Token q~w+e/r=t.y-u_i9o8',
  'https://hooks.slack.com/services/T000/B000/XXXX',
  'my pin is 4821',
  'PIN is 9731',
  'the passcode was Zx81!',
  'paſſword is hunter22',
  'api key was q8ZrT3xV9wK2mB7n',
  'access key is AbC123xyz987',
  '密码是abc123',
  'pwd=hunter22',
  'x:"Zq81"',
  'getEnv("api_token", "9f8e7d6c5b4a3f2e1d0c")',
  '"Ab3dEf6hIj9kLm2nOp5q"',
  `${'aB3'.repeat(10)}Zz`,
  'curl -u bob:pa55word https://x.test',
  'curl --user bob:pa55word https://x.test',
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----',
  'db at postgres://user:hunter22@db.example.com/app',
  'ping ::1 now',
  'fe80::1',
  'host 1.2.3.4 up',
  'iban gb82west12345698765432',
  'IBAN GB82 WEST 1234 5698 7654 32',
  '身份证 110101491231002',
  '身份证 11010519491231002X',
  `card ${luhnComplete('50000000000')}`,
  `card ${luhnComplete('411111111111111')}`,
  'Phone: 451 5986',
  'call 13812345678',
  'mail a@b.co',
  'Mr Smith',
  'Mx Jones',
  'Prof Lee said',
  'my full name is Anna Berg.',
  'Name: Tom',
  'Contact = Anna',
  '负责人 Anna',
  '名叫Tom',
  "I'm Tom.",
  'Hey Tom,',
  'married to Anna.',
  'Sir Lancelot',
  '我叫王小明，',
  '张先生',
  'QQ 12345678',
  '微信 abc_12345',
  '护照 G12345678',
];

function corpus(): string[] {
  const texts: string[] = [...AT_THRESHOLD];
  const fixtures = path.join(repoRoot, 'tests', 'fixtures');
  for (const f of fs.readdirSync(fixtures).filter((name) => /^pii-.*\.jsonl$/.test(name))) {
    readFixture(path.join(fixtures, f)).forEach((c, i) => texts.push(c.text, withInvisible(c, i).text));
  }
  generatedCases(20).forEach((c, i) => texts.push(c.text, withInvisible(c, i).text, i % 2 ? c.text.toUpperCase() : c.text.toLowerCase()));
  const r = mulberry32(16);
  for (let i = 0; i < 2000; i++) texts.push(randomText(r));
  return texts;
}

const OPTIONS: DetectOptions[] = [
  {},
  { names: true },
  { names: 'none' },
  { redactPatterns: DEFAULT_REDACT_PATTERNS },
  { names: true, redactPatterns: ['pin', 'cookie', '-----BEGIN [A-Z ]+-----'], minConfidence: 0.5 },
];

describe('PII prefilters', () => {
  const texts = corpus();

  it.each(OPTIONS.map((o) => [JSON.stringify(o), o] as const))('find the same spans as the unfiltered detector, options %s', (_, opts) => {
    let spans = 0;
    let clean = 0;
    const differing: string[] = [];
    for (const text of texts) {
      const filtered = detectPii(text, opts);
      const unfiltered = detectPii(text, opts, false);
      spans += unfiltered.length;
      if (!unfiltered.length) clean++;
      if (JSON.stringify(filtered) !== JSON.stringify(unfiltered)) differing.push(JSON.stringify(text));
    }
    expect(differing).toEqual([]);
    // the corpus exercises what it claims to: plenty of texts with spans, and plenty without
    expect(spans).toBeGreaterThan(texts.length / 4);
    expect(clean).toBeGreaterThan(texts.length / 10);
  });

  it('allMatches finds what matchAll finds, empty matches and surrogate pairs included', () => {
    const cases: [RegExp, string][] = [
      [/a*/g, 'baaac'],
      [/(?:)/gu, 'x😀y'],
      [/(?:)/g, 'x😀y'],
      [/\d+/g, 'a1b22c333'],
      [/(?<=\$)\d+/g, '$1 $22'],
    ];
    for (const [re, text] of cases) {
      const expected = [...text.matchAll(re)].map((m) => [m.index, m[0]]);
      expect(allMatches(re, text).map((m) => [m.index, m[0]])).toEqual(expected);
      expect(re.lastIndex).toBe(0);
    }
    expect(() => allMatches(/a/, 'a')).toThrow(TypeError);
  });
});
