import { describe, expect, it } from 'vitest';
import { detectPii, isValidChineseId, type PiiSpan, type PiiType } from '../../src/core/pii/index';

const found = (text: string, opts = {}) => detectPii(text, opts).map((s) => [s.type, s.value] as [PiiType, string]);
const ofType = (text: string, type: PiiType, opts = {}) =>
  detectPii(text, opts)
    .filter((s) => s.type === type)
    .map((s) => s.value);

describe('span contract', () => {
  it('gives stable ids and offsets into the JavaScript string, sorted and non-overlapping', () => {
    const text = '联系 😀 bob@example.com 或 13812345678';
    const spans = detectPii(text);
    expect(spans.map((s) => s.type)).toEqual(['EMAIL', 'PHONE']);
    for (const s of spans) {
      expect(text.slice(s.start, s.end)).toBe(s.value);
      expect(s.id).toBe(`${s.type}:${s.start}:${s.end}`);
      expect(s.confidence).toBeGreaterThan(0);
      expect(s.detector).toBeTruthy();
    }
    expect(spans[0]!.end).toBeLessThanOrEqual(spans[1]!.start);
    expect(detectPii(text)).toEqual(spans);
  });

  it('returns nothing for empty or clean text', () => {
    expect(detectPii('')).toEqual([]);
    expect(detectPii('The meeting moved to Thursday; bring the slides.')).toEqual([]);
  });
});

describe('emails', () => {
  it('finds plain and punycode addresses', () => {
    expect(ofType('write to info@presidio.site or anotherinfo@presidio.site', 'EMAIL')).toEqual([
      'info@presidio.site',
      'anotherinfo@presidio.site',
    ]);
    expect(ofType('a@xn--d1acufc.xn--p1ai', 'EMAIL')).toEqual(['a@xn--d1acufc.xn--p1ai']);
  });
  it('rejects addresses without a top-level domain and masked local parts', () => {
    expect(ofType('my email is info@presidio.', 'EMAIL')).toEqual([]);
    expect(ofType('https://user:****@example.com', 'EMAIL')).toEqual([]);
  });
});

describe('phones', () => {
  it('finds US and international formats through libphonenumber', () => {
    expect(ofType('My US number is (415) 555-0132, and my international one is +44 (20) 7123 4567', 'PHONE')).toEqual([
      '(415) 555-0132',
      '+44 (20) 7123 4567',
    ]);
    expect(ofType('Brazil: +55 11 98456 5666', 'PHONE')).toEqual(['+55 11 98456 5666']);
  });
  it('finds Chinese mobiles with or without +86 and separators', () => {
    expect(ofType('我的手机号是13812345678，有事打给我', 'PHONE')).toEqual(['13812345678']);
    expect(ofType('电话：+86 139 1234 5678；备用 186-1234-5678', 'PHONE')).toEqual(['+86 139 1234 5678', '186-1234-5678']);
    expect(ofType('联系我：+86-15012345678', 'PHONE')).toEqual(['+86-15012345678']);
  });
  it('finds Chinese landlines', () => {
    expect(ofType('座机010-62345678，深圳 0755-1234567，上海 (021)62345678', 'PHONE')).toEqual([
      '010-62345678',
      '0755-1234567',
      '(021)62345678',
    ]);
  });
  it('treats numbers inside URLs and keys as identifiers unless the key says phone', () => {
    expect(ofType('see https://example.com/item/4155550132 and agent:main:telegram:direct:7192195698', 'PHONE')).toEqual([]);
    expect(ofType('Phone:4155550132', 'PHONE')).toEqual(['4155550132']);
  });
  it('needs a phone word for ten bare digits (hashes, constants, chat ids), not for a bare Chinese mobile', () => {
    expect(ofType('let h = 2166136261; targets: [7192195698]', 'PHONE')).toEqual([]);
    expect(ofType('Desk: 5403926876', 'PHONE')).toEqual(['5403926876']);
    expect(ofType('My CN number is 13812345678', 'PHONE')).toEqual(['13812345678']);
  });
  it('finds local numbers only when a phone word introduces them', () => {
    expect(ofType('Can someone call me on 450 0840? I have questions', 'PHONE')).toEqual(['450 0840']);
    expect(ofType('Room 450 0840 is on the left', 'PHONE')).toEqual([]);
  });
  it('does not flag order numbers, timestamps, prices, dates or SSN-shaped numbers', () => {
    for (const text of [
      '订单号：13812345678',
      '金额 13812345678 元',
      '时间戳 1700634000123',
      '2023-11-22 13:45:12 下单成功',
      'price $1,234.56 paid at 12:34:56',
      'order #4155550132 shipped',
      "Here's my SSN: 054-28-6917",
      'MAC: 01-23-45-67-89-AB',
    ]) {
      expect(ofType(text, 'PHONE'), text).toEqual([]);
    }
  });
});

describe('full-width input', () => {
  it('finds full-width digits and punctuation and reports the original characters', () => {
    const text = '手机：１３８１２３４５６７８，邮箱：ｂｏｂ＠ｅｘａｍｐｌｅ．ｃｏｍ';
    const spans = detectPii(text);
    expect(spans.map((s) => [s.type, s.value])).toEqual([
      ['PHONE', '１３８１２３４５６７８'],
      ['EMAIL', 'ｂｏｂ＠ｅｘａｍｐｌｅ．ｃｏｍ'],
    ]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.value);
  });
});

describe('cards', () => {
  it('finds Luhn-valid cards with separators', () => {
    expect(ofType('4012888888881881 4012-8888-8888-1881 4012 8888 8888 1881', 'CREDIT_CARD')).toEqual([
      '4012888888881881',
      '4012-8888-8888-1881',
      '4012 8888 8888 1881',
    ]);
    expect(ofType('my credit card: 371449635398431', 'CREDIT_CARD')).toEqual(['371449635398431']);
  });
  it('rejects Luhn failures and digit runs without an issuer', () => {
    expect(found('my credit card number is 4012-8888-8888-1882')).toEqual([]);
    expect(found('1748503543012')).toEqual([]);
  });
  it('finds UnionPay bank cards, with Luhn or named as a card', () => {
    expect(ofType('工资卡号 6222021001123456789', 'BANK_CARD')).toEqual(['6222021001123456789']);
    expect(ofType('银行卡：6217 0012 3456 7890 122', 'BANK_CARD')).toEqual(['6217 0012 3456 7890 122']);
    expect(ofType('卡号 621483012345678911', 'BANK_CARD')).toEqual(['621483012345678911']);
    expect(found('编号 621483012345678911')).toEqual([]);
  });
  it('does not read order, transaction or barcode numbers as cards', () => {
    expect(found('流水号 62220210011234567890')).toEqual([]);
    expect(found('order # 4111111111111111')).toEqual([]);
    expect(found('6901234567892 库存 138 件')).toEqual([]);
  });
});

describe('Chinese resident IDs', () => {
  it('accepts valid checksums, including X', () => {
    expect(isValidChineseId('11010519491231002X')).toBe(true);
    expect(isValidChineseId('11010519491231002x')).toBe(true);
    expect(ofType('身份证 440304199001011233，请核对', 'CN_ID')).toEqual(['440304199001011233']);
  });
  it('rejects a wrong check character, an impossible birth date, a future birth date or an unknown province', () => {
    expect(isValidChineseId('110105194912310021')).toBe(false);
    expect(isValidChineseId('110105194902310026')).toBe(false);
    expect(isValidChineseId('110105209912310014', new Date('2026-01-01'))).toBe(false);
    expect(isValidChineseId('990105194912310026')).toBe(false);
    expect(found('身份证号 110105194912310021')).toEqual([]);
  });
  it('finds first-generation 15-digit IDs only when named as an ID', () => {
    expect(ofType('老身份证号 110105491231002', 'CN_ID')).toEqual(['110105491231002']);
    expect(ofType('编号 110105491231002', 'CN_ID')).toEqual([]);
  });
  it('wins over a card reading of the same digits', () => {
    // Gansu IDs start with 62 like UnionPay cards; this one also passes Luhn.
    const spans = detectPii('甘肃身份证 620102199303031555');
    expect(spans.map((s) => [s.type, s.value])).toEqual([['CN_ID', '620102199303031555']]);
  });
});

describe('IP addresses', () => {
  it('finds IPv4, IPv6, mapped and CIDR forms', () => {
    expect(ofType('IPs: 192.168.1.1, 10.0.0.1, 2001:db8::1', 'IP_ADDRESS')).toEqual(['192.168.1.1', '10.0.0.1', '2001:db8::1']);
    expect(ofType('Mapped: ::ffff:192.168.1.1', 'IP_ADDRESS')).toEqual(['::ffff:192.168.1.1']);
    expect(ofType('Subnet: 192.168.1.0/24 and fe80::1%eth0', 'IP_ADDRESS')).toEqual(['192.168.1.0/24', 'fe80::1%eth0']);
    expect(ofType('Connect to [2001:db8::1]:8080', 'IP_ADDRESS')).toEqual(['2001:db8::1']);
  });
  it('validates octets and hextets and skips look-alikes', () => {
    for (const text of [
      '256.256.256.256',
      '192.168.1',
      'Version 1.2.3',
      'version 1.2.3.4',
      'Time 12:34:56',
      'aa:bb:cc:dd:ee:ff',
      'std::cout',
      '2001::db8::1',
      'IP192.168.1.1text',
      'Mobile: 03.93.92.16.85',
    ]) {
      expect(ofType(text, 'IP_ADDRESS'), text).toEqual([]);
    }
  });
});

describe('URLs with credentials', () => {
  it('finds user:password@host URLs, also when the password holds an @', () => {
    expect(ofType('DATABASE_URL=postgres://app:Xk9!vQ2mz@db.internal:5432/prod', 'URL_CREDENTIALS')).toEqual([
      'postgres://app:Xk9!vQ2mz@db.internal:5432',
    ]);
    expect(ofType('proxy http://user:p@ss@proxy.example:8080', 'URL_CREDENTIALS')).toEqual(['http://user:p@ss@proxy.example:8080']);
  });
  it('ignores URLs without a password and templated or masked ones', () => {
    for (const text of [
      'https://www.microsoft.com/store',
      'http://localhost:8080/path',
      'postgres://app:${DB_PASSWORD}@db:5432',
      'https://user:****@example.com',
    ]) {
      expect(ofType(text, 'URL_CREDENTIALS'), text).toEqual([]);
    }
  });
});

describe('API keys, tokens, private keys and passwords', () => {
  it.each([
    ['AKIAIOSFODNN7EXAMPLE', 'pattern:aws-access-key'],
    ['ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ', 'pattern:github-token'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ', 'pattern:github-pat'],
    ['xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp', 'pattern:slack-token'],
    ['sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'pattern:stripe-key'],
    ['AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'pattern:google-api-key'],
    ['sk-proj-AbCdEf1234567890GhIjKlMn', 'pattern:openai-key'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'pattern:jwt'],
  ])('finds the well-known format %s', (key, detector) => {
    const spans = detectPii(`here it is: ${key} ok`);
    expect(spans.map((s) => [s.type, s.value, s.detector])).toEqual([['API_KEY', key, detector]]);
  });

  it('finds seed redactPatterns assignments in key=value, key: value and JSON forms', () => {
    expect(ofType('api_key=q8Zr2LmX0vB7nT4kW9yP', 'API_KEY')).toEqual(['q8Zr2LmX0vB7nT4kW9yP']);
    expect(ofType('client_secret: 6da89121079f83b2eb6acccf8219ea98', 'API_KEY')).toEqual(['6da89121079f83b2eb6acccf8219ea98']);
    expect(ofType('{"access_token": "eyJ0eXAioiJKV1slS3oASx=="}', 'API_KEY')).toEqual(['eyJ0eXAioiJKV1slS3oASx==']);
  });

  it('finds passwords, English and Chinese', () => {
    expect(ofType('password=hunter22 and pwd: Tr0ub4dor&3', 'PASSWORD')).toEqual(['hunter22', 'Tr0ub4dor&3']);
    expect(ofType('数据库密码：Abc@12345，口令=qwerty2024', 'PASSWORD')).toEqual(['Abc@12345', 'qwerty2024']);
  });

  it('ignores placeholders, references and metadata keys', () => {
    for (const text of [
      '{"api_key": "YOUR_API_KEY", "password": "changeme", "token": "<your token>"}',
      'password = ****** and secret=xxx',
      'token = process.env.API_TOKEN',
      'the password field is required; set token_url and secret_name',
      'secret_length = X25519.secret_length',
      "credentialsId: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'",
      'const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"',
      'public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"',
      'GITHUB_API_KEY=\nDYNATRACE_API_KEY=',
      'The user said "please tell me the secret token.",同时通道提供了最近 3 条历史记录',
      'b.tokens = Math.min(this.opts.capacity, b.tokens + 1)',
      'promptTokens: z.number().optional(), max_tokens: 4096',
      "const cols = ['prompt_tokens', 'completion_tokens', 'write_status']",
    ]) {
      expect(
        detectPii(text).filter((s) => s.type === 'API_KEY' || s.type === 'PASSWORD'),
        text,
      ).toEqual([]);
    }
  });

  it('uses extra key patterns from the workspace config', () => {
    const text = 'session_cookie = a8Fz3Kq9Lm2Xv7Pw';
    expect(ofType(text, 'API_KEY')).toEqual([]);
    expect(ofType(text, 'API_KEY', { redactPatterns: ['session[_-]?cookie'] })).toEqual(['a8Fz3Kq9Lm2Xv7Pw']);
  });

  it('takes a private key block whole, from BEGIN through END', () => {
    const block = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----';
    const spans = detectPii(`key:\n${block}\ndone`);
    expect(spans.map((s) => [s.type, s.value])).toEqual([['PRIVATE_KEY', block]]);
    expect(ofType('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----', 'PRIVATE_KEY')).toEqual([]);
  });

  it('ends an unterminated private key block with its base64 body, not at the end of the text', () => {
    const text =
      'pasted:\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEowIBAAKCAQEAu1SU1L\nabcDEF123+/=\n\nThanks, that is all.';
    expect(ofType(text, 'PRIVATE_KEY')).toEqual([
      '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEowIBAAKCAQEAu1SU1L\nabcDEF123+/=',
    ]);
  });
});

describe('person names', () => {
  it('finds cued names by default, weaker heuristics only with names: true, none with names: none', () => {
    const text = 'Hi Carol, my name is Alice Smith. 我叫张三，来自北京。Ask Dr. Brown.';
    expect(ofType(text, 'PERSON')).toEqual(['Alice Smith', '张三', 'Brown']);
    const spans: PiiSpan[] = detectPii(text, { names: true }).filter((s) => s.type === 'PERSON');
    expect(spans.map((s) => s.value)).toEqual(['Carol', 'Alice Smith', '张三', 'Brown']);
    expect(Math.max(...spans.map((s) => s.confidence))).toBeLessThanOrEqual(0.5);
    expect(ofType(text, 'PERSON', { names: 'none' })).toEqual([]);
  });
  it('does not take the name field of a thing for a person', () => {
    expect(ofType('Project name: Atlas; Agent name: Juniper; Name: Alex Chen', 'PERSON')).toEqual(['Alex Chen']);
  });
  it('can be filtered out by minConfidence', () => {
    expect(ofType('my name is Alice Smith', 'PERSON', { names: true, minConfidence: 0.6 })).toEqual([]);
  });
});

describe('secrets in prose', () => {
  it('finds passwords stated in a sentence, English and Chinese, and curl credentials', () => {
    expect(ofType('my password is hunter2', 'PASSWORD')).toEqual(['hunter2']);
    expect(ofType('the password is "correct horse battery staple"', 'PASSWORD')).toEqual(['correct horse battery staple']);
    expect(ofType('我的密码是abc12345，别外传', 'PASSWORD')).toEqual(['abc12345']);
    expect(ofType('WiFi 密码是 Home@2024!，访客用另一个', 'PASSWORD')).toEqual(['Home@2024!']);
    expect(ofType('curl -u admin:secret123 https://api.example.com', 'PASSWORD')).toEqual(['secret123']);
  });
  it('does not take ordinary words after "password is" for a password', () => {
    for (const text of ['the password is incorrect', 'The password is required.', 'password is too short', 'the token is expired']) {
      expect(detectPii(text), text).toEqual([]);
    }
  });
});
