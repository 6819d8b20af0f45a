// A generated Chinese/English PII set for `npm run bench:pii`: random valid values (checksums computed),
// written in the surface forms people use (spaced, dashed, full-width, glued to Chinese text) inside varied
// sentences, plus look-alike negatives built from the same values made invalid or stripped of their cue.
// Generated at run time from a fixed seed, so nothing bulky is committed and every run is the same.
import type { LabelledText } from './pii-eval';

/** A small seeded generator: the same seed gives the same cases on every machine. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!; // r() < 1; every list is non-empty
const digits = (r: Rand, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const idCheck = (body: string) => '10X98765432'.charAt([...body].reduce((s, d, i) => s + Number(d) * (ID_WEIGHTS[i] ?? 0), 0) % 11);
const AREAS = ['110101', '310104', '440305', '510107', '320582', '330106', '420111', '610113', '210202', '370202', '500103', '650102'];

function chineseId(r: Rand, valid: boolean): string {
  const year = 1850 + Math.floor(r() * 172);
  const month = 1 + Math.floor(r() * 12);
  const day = 1 + Math.floor(r() * 28);
  const body = pick(r, AREAS) + String(year) + String(month).padStart(2, '0') + String(day).padStart(2, '0') + digits(r, 3);
  const check = idCheck(body);
  if (valid) return body + check;
  return body + '10X98765432'.replace(check, '').charAt(Math.floor(r() * 10));
}

function luhnComplete(prefix: string): string {
  for (let d = 0; d < 10; d++) {
    const s = prefix + d;
    let sum = 0;
    for (let i = 0; i < s.length; i++) {
      let x = Number(s[s.length - 1 - i]);
      if (i % 2) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return s;
  }
  return prefix + '0';
}

function card(r: Rand, valid: boolean): string {
  const [prefix, len] = pick(r, [
    ['4', 16],
    ['51', 16],
    ['55', 16],
    ['2221', 16],
    ['6011', 16],
    ['35', 16],
    ['622202', 19],
    ['621700', 16],
  ] as const);
  const good = luhnComplete(prefix + digits(r, len - prefix.length - 1));
  return valid ? good : good.slice(0, -1) + ((Number(good.slice(-1)) + 1 + Math.floor(r() * 8)) % 10);
}

/** Digits grouped as people write them. */
function grouped(r: Rand, v: string, sizes: number[][]): string {
  const form = pick(r, ['plain', 'space', 'dash', 'full', 'plain']);
  if (form === 'plain') return v;
  if (form === 'full') return fullWidth(v);
  const plan = pick(r, sizes);
  const parts: string[] = [];
  let at = 0;
  for (const n of plan) {
    parts.push(v.slice(at, at + n));
    at += n;
  }
  if (at < v.length) parts.push(v.slice(at));
  return parts.filter(Boolean).join(form === 'space' ? ' ' : '-');
}

const MOBILE_PREFIXES = ['134', '135', '136', '138', '139', '150', '151', '158', '166', '177', '180', '186', '188', '191', '199'];
const SURNAMES = [
  '王',
  '李',
  '张',
  '刘',
  '陈',
  '杨',
  '黄',
  '赵',
  '吴',
  '周',
  '徐',
  '孙',
  '胡',
  '朱',
  '郭',
  '何',
  '罗',
  '郑',
  '梁',
  '谢',
  '宋',
  '唐',
  '许',
  '韩',
  '冯',
  '邓',
  '曹',
  '彭',
  '曾',
  '萧',
  '欧阳',
  '司马',
  '诸葛',
];
const GIVEN = Array.from('伟芳娜敏静丽强磊军洋勇艳杰娟涛超霞平刚桂英华玉兰萍鹏辉红玲建国志明文浩宇欣怡子涵思远梓萱俊杰');
const LATIN = 'abcdefghijklmnopqrstuvwxyz';
const word = (r: Rand, n: number) => Array.from({ length: n }, () => pick(r, Array.from(LATIN))).join('');

interface Template {
  type: string;
  make: (r: Rand) => string;
  /** Sentences with {v}; negative templates have no gold. */
  positive: string[];
  negative?: string[];
  /** A look-alike value for the negative templates (defaults to a fresh valid value). */
  lookalike?: (r: Rand) => string;
}

const TEMPLATES: Template[] = [
  {
    type: 'CN_ID',
    make: (r) =>
      grouped(r, chineseId(r, true), [
        [6, 8, 4],
        [6, 4, 4, 4],
        [3, 3, 4, 4, 4],
        [6, 8, 3],
      ]),
    positive: [
      '我的身份证号是{v}，麻烦登记一下',
      '身份证：{v}',
      'ID card number {v}, please verify',
      '帮我查一下 {v} 这个证件',
      '{v} 是我爸的身份证',
      '证件号码{v}。',
      '乘车人身份证 {v} 已核验',
    ],
    negative: ['订单号 {v} 已发货', '流水号{v}', '身份证 {v} 校验失败了'],
    lookalike: (r) => chineseId(r, false),
  },
  {
    type: 'CARD',
    make: (r) =>
      grouped(r, card(r, true), [
        [4, 4, 4, 4],
        [4, 4, 4, 4, 3],
        [6, 13],
      ]),
    positive: ['信用卡号 {v}，有效期 12/28', '银行卡：{v}', 'charge it to card {v} please', '我的卡 {v} 被冻结了', 'Card number: {v}'],
    negative: ['订单号 {v} 已付款', 'tracking number {v}', '交易流水 {v}'],
    lookalike: (r) => card(r, false),
  },
  {
    type: 'PHONE',
    make: (r) => {
      const v = pick(r, MOBILE_PREFIXES) + digits(r, 8);
      const f = Math.floor(r() * 6);
      return [
        v,
        `${v.slice(0, 3)} ${v.slice(3, 7)} ${v.slice(7)}`,
        `${v.slice(0, 3)}-${v.slice(3, 7)}-${v.slice(7)}`,
        `+86 ${v}`,
        fullWidth(v),
        `+86-${v.slice(0, 3)}-${v.slice(3, 7)}-${v.slice(7)}`,
      ][f]!; // f < 6, one per form
    },
    positive: ['手机号{v}，有事打我', '电话：{v}', 'call me at {v} tonight', '联系方式 {v}（微信同号）', '打这个 {v} 找我'],
  },
  {
    type: 'EMAIL',
    make: (r) => {
      const v = `${word(r, 3 + Math.floor(r() * 6))}${pick(r, ['.', '_', ''])}${word(r, 2 + Math.floor(r() * 4))}${Math.floor(r() * 100)}@${pick(r, ['qq.com', '163.com', 'example.com', 'company.cn', 'mail.example.org'])}`;
      return r() < 0.2 ? fullWidth(v) : v;
    },
    positive: ['邮箱是{v}，发简历到这里', 'email me at {v}', '联系：{v}', '我的邮箱 {v} 收不到验证码'],
  },
  {
    type: 'QQ',
    make: (r) => {
      const v = String(1 + Math.floor(r() * 9)) + digits(r, 4 + Math.floor(r() * 6));
      const f = r();
      return f < 0.2 ? fullWidth(v) : f < 0.35 && v.length >= 8 ? `${v.slice(0, 4)} ${v.slice(4)}` : v;
    },
    positive: [
      '加我QQ {v}',
      '我的QQ号是{v}，晚上在线',
      'QQ：{v}',
      '扣扣 {v} 备注来意',
      '企鹅号{v}',
      'my QQ is {v}',
      'QQ号码为 {v}。',
      '有问题找我QQ（{v}）',
    ],
    negative: ['库存 {v} 件', '编号 {v} 的包裹', 'QQ群 {v} 欢迎加入', '批次{v}已入库', '今天走了 {v} 步'],
  },
  {
    type: 'WECHAT',
    make: (r) =>
      r() < 0.4
        ? `wxid_${word(r, 4)}${digits(r, 4)}${word(r, 6)}`
        : `${word(r, 1 + Math.floor(r() * 5))}${pick(r, ['_', '-', ''])}${word(r, 3)}${digits(r, 2 + Math.floor(r() * 3))}`,
    positive: ['我的微信号是 {v}', '微信：{v}', 'WeChat ID: {v}', '加我微信 {v}，备注姓名', 'vx：{v}', 'wechat {v} 随时联系'],
  },
  {
    type: 'CN_PASSPORT',
    make: (r) => {
      const v = r() < 0.6 ? pick(r, ['E', 'G']) + digits(r, 8) : 'E' + pick(r, Array.from('ABCDEFGHJKLMNPQRSTUVWXYZ')) + digits(r, 7);
      return r() < 0.15 ? fullWidth(v) : v;
    },
    positive: ['护照号码：{v}', '我的护照是 {v}，下个月过期', 'passport number {v}', 'Passport No. {v} (PRC)', '护照 {v} 已送签'],
    negative: ['型号 {v} 的零件缺货', '商品编码{v}', '工单 {v} 已关闭'],
  },
  {
    type: 'PERSON',
    make: (r) => pick(r, SURNAMES) + pick(r, GIVEN) + (r() < 0.5 ? pick(r, GIVEN) : ''),
    positive: [
      '我叫{v}，在上海工作',
      '联系人：{v}',
      '我的名字是{v}。',
      '收件人 {v}',
      '你好，我是{v}，负责这个项目',
      '姓名：{v}',
      '@{v} 请看一下',
      '我同事{v}说明天请假',
      '请转告{v}先生',
      '亲爱的{v}：',
    ],
    // Words after the same cues that are not names: roles, origins, groups, subjects.
    negative: ['我是{v}，有问题找我', '亲爱的{v}，您好', '{v}老师布置了作业', '联系人管理：{v}列表'],
    lookalike: (r) =>
      pick(r, ['程序员', '郑州人', '顾客', '历史', '管理员', '学生', '苏州人', '房东', '新来的', '司机', '用户', '各位', '班主任', '高手']),
  },
];

/** Positive cases per type (each value in a random template) and the negative templates filled with look-alikes. */
export function generatedCases(perType = 40, seed = 12): LabelledText[] {
  const r = mulberry32(seed);
  const out: LabelledText[] = [];
  for (const t of TEMPLATES) {
    for (let i = 0; i < perType; i++) {
      const v = t.make(r);
      const [before, after] = pick(r, t.positive).split('{v}');
      if (before === undefined || after === undefined) throw new Error(`template without {v}: ${t.type}`);
      out.push({ text: before + v + after, gold: [{ type: t.type, start: before.length, end: before.length + v.length }] });
    }
    for (const neg of t.negative ?? []) {
      for (let i = 0; i < Math.ceil(perType / 8); i++) {
        const v = (t.lookalike ?? t.make)(r);
        out.push({ text: neg.replace('{v}', v), gold: [] });
      }
    }
  }
  return out;
}
