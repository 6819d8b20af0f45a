import { describe, expect, it } from 'vitest';
import { detectPii, detectionView, isValidChineseId, redact, type PiiType } from '../../src/core/pii/index';

const ofType = (text: string, type: PiiType, opts = {}) =>
  detectPii(text, opts)
    .filter((s) => s.type === type)
    .map((s) => s.value);
const ZWSP = '\u200b';

describe('detection view: fold, strip invisible characters, map back', () => {
  it('returns null for text that needs no folding (the fast path)', () => {
    expect(detectionView('plain ascii 13812345678')).toBeNull();
    expect(detectionView('中文文本没有全角符号')).toBeNull();
  });

  it('folds full-width forms, other digits and dashes, drops format characters, and maps offsets back', () => {
    const text = `电话：１３８\u2011１２３４${ZWSP}\u2060－٥٦٧٨`;
    const view = detectionView(text)!;
    expect(view.text).toBe('电话:138-1234-5678');
    const at = view.text.indexOf('138');
    expect(view.starts[at]).toBe(text.indexOf('１'));
    expect(view.ends[view.text.length - 1]).toBe(text.length);
  });

  it.each([
    ['email', `mail bob${ZWSP}.smith@exam\u200dple.com now`, 'EMAIL', `bob${ZWSP}.smith@exam\u200dple.com`],
    ['card', `card 4111 1111${ZWSP} 1111 1111 ok`, 'CREDIT_CARD', `4111 1111${ZWSP} 1111 1111`],
    ['API key', `key AKIAIOSFO\ufeffDNN7EXAMPLE here`, 'API_KEY', `AKIAIOSFO\ufeffDNN7EXAMPLE`],
    ['phone', `手机 138\u00ad1234\u202c5678`, 'PHONE', `138\u00ad1234\u202c5678`],
    ['CN ID', `身份证 1101011880${'\u{E0020}'}03070018`, 'CN_ID', `1101011880${'\u{E0020}'}03070018`],
    ['WeChat id', `微信 wxid_8k2m\u28009x0q\u20621p7z22 加我`, 'WECHAT', `wxid_8k2m\u28009x0q\u20621p7z22`],
  ])('finds a %s with an invisible character inside and redacts all of it', (_label, text, type, value) => {
    const spans = detectPii(text);
    expect(spans.map((s) => [s.type, s.value])).toEqual([[type, value]]);
    expect(text.slice(spans[0]!.start, spans[0]!.end)).toBe(value);
    const out = redact(text, spans).text;
    expect(out).toBe(text.replace(value, `[${type}_1]`));
    expect(out).not.toMatch(/[\u200b-\u200f\u00ad\ufeff\u202c\u2062\u2800\u{E0020}]/u);
  });

  it('does not turn look-alike numbers into PII by hiding characters in them', () => {
    expect(detectPii(`订单号 2024${ZWSP}110512345678 已发货，时间戳 17000${ZWSP}00000123`)).toEqual([]);
  });
});

describe('Chinese resident IDs', () => {
  it('accepts any birth year from 1800 when the checksum holds, and no future date', () => {
    expect(isValidChineseId('110101188003070018')).toBe(true);
    expect(isValidChineseId('110101188003070017')).toBe(false);
    expect(isValidChineseId('82000020410805317X')).toBe(false);
  });
  it('finds an ID however its digits are grouped, and full-width', () => {
    expect(ofType('ID: 440306 19231111 2356', 'CN_ID')).toEqual(['440306 19231111 2356']);
    expect(ofType('证件号码 5101-0719-5602-2900-88 已登记', 'CN_ID')).toEqual(['5101-0719-5602-2900-88']);
    expect(ofType('身份证：３２０５８２１９８７０６１５１２３４', 'CN_ID')).toEqual(['３２０５８２１９８７０６１５１２３４']);
    expect(ofType('ID: 2 3 0 1 0 3 1 9 2 8 0 9 0 9 1 5 6 5', 'CN_ID')).toEqual(['2 3 0 1 0 3 1 9 2 8 0 9 0 9 1 5 6 5']);
  });
});

describe('QQ numbers', () => {
  it('need a cue word, and not a QQ group or product', () => {
    expect(ofType('加我QQ 2837465019，晚上在线', 'QQ')).toEqual(['2837465019']);
    expect(ofType('扣扣是 87654321；企鹅号：493827156', 'QQ')).toEqual(['87654321', '493827156']);
    expect(ofType('my QQ number: 10293847, or 20394858', 'QQ')).toEqual(['10293847', '20394858']);
    expect(ofType('QQ群 123456789 和QQ号 55667788', 'QQ')).toEqual(['55667788']);
    expect(ofType('QQ 2837 4650 19 加我；QQ 12345678 13812345678', 'QQ')).toEqual(['2837 4650 19', '12345678']);
    expect(ofType('库存 2837465019 件，编号 493827156', 'QQ')).toEqual([]);
    expect(detectPii('QQ邮箱 2837465019@qq.com').map((s) => s.type)).toEqual(['EMAIL']);
  });
});

describe('WeChat ids', () => {
  it('finds wxid_ anywhere and custom ids after a WeChat cue', () => {
    expect(ofType('转账备注：wxid_abc123def456gh', 'WECHAT')).toEqual(['wxid_abc123def456gh']);
    expect(ofType('微信号：zhang_san-1988，备注来自展会', 'WECHAT')).toEqual(['zhang_san-1988']);
    expect(ofType('加V：LiuQiang_2020 （微信同名）', 'WECHAT')).toEqual(['LiuQiang_2020']);
    expect(ofType('WeChat: momo-chen88', 'WECHAT')).toEqual(['momo-chen88']);
  });
  it('ignores WeChat mentions without an id, and plain words', () => {
    expect(ofType('我用微信支付了 38 元，微信群里说一下', 'WECHAT')).toEqual([]);
    expect(ofType('WeChat is great for payments', 'WECHAT')).toEqual([]);
  });
});

describe('Chinese passports', () => {
  it('finds E/G + 8 digits, the lettered E series and official passports with a cue', () => {
    expect(ofType('护照号码 E12345678，有效期到2030年', 'CN_PASSPORT')).toEqual(['E12345678']);
    expect(ofType('新护照是 EB7654321，旧的是 G29384756', 'CN_PASSPORT')).toEqual(['EB7654321', 'G29384756']);
    expect(ofType('passport no. g87654321', 'CN_PASSPORT')).toEqual(['g87654321']);
    expect(ofType('外交护照 DE1234567 需要交回', 'CN_PASSPORT')).toEqual(['DE1234567']);
  });
  it("takes other countries' shapes right after a passport-number cue", () => {
    expect(ofType('passport number: 123456789', 'CN_PASSPORT')).toEqual(['123456789']);
    expect(ofType('护照号码：P1234567', 'CN_PASSPORT')).toEqual(['P1234567']);
    expect(ofType('护照 2 本，passport photo 123', 'CN_PASSPORT')).toEqual([]);
  });
  it('ignores the same shapes without a cue (part numbers, trains)', () => {
    expect(ofType('型号 E12345678 的零件到货了，坐 G1234 次高铁', 'CN_PASSPORT')).toEqual([]);
  });
});

describe('Chinese person names', () => {
  it('finds names after introductions, form labels, greetings and mentions', () => {
    expect(ofType('我叫王小明，在杭州做前端。', 'PERSON')).toEqual(['王小明']);
    expect(ofType('联系人：欧阳娜娜 电话 13912345678', 'PERSON')).toEqual(['欧阳娜娜']);
    expect(ofType('你好，我是陈思远，今天负责接待。', 'PERSON')).toEqual(['陈思远']);
    expect(ofType('@李娜 你看一下', 'PERSON')).toEqual(['李娜']);
  });
  it('finds Latin names after Chinese cues and Chinese names after English labels', () => {
    expect(ofType('我叫 Tom Lee，来自纽约', 'PERSON')).toEqual(['Tom Lee']);
    expect(ofType('Name: 王小明', 'PERSON')).toEqual(['王小明']);
    expect(ofType('- Name: Alex Chen (陈亚历)', 'PERSON')).toEqual(['Alex Chen', '陈亚历']);
    expect(ofType('Name: Alex Chen (Staff Engineer)', 'PERSON')).toEqual(['Alex Chen']);
  });
  it('finds names before titles', () => {
    expect(ofType('明天找张先生签合同，再和陈老师对一下', 'PERSON')).toEqual(['张', '陈']);
    expect(ofType('王芳女士的快递放在前台', 'PERSON')).toEqual(['王芳']);
  });
  it('does not read verbs, subjects or generic titles as names', () => {
    for (const text of [
      '我叫了外卖，老师说明天不上课',
      '历史老师布置了作业，班主任也来了',
      '我是高手，你放心',
      '各位老师好，这位先生请坐',
      '亲爱的朋友们',
    ]) {
      expect(ofType(text, 'PERSON'), text).toEqual([]);
    }
  });
});
