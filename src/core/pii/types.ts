// The contract between PII detection and its users (dataset collection, export, the review UI).

export const PII_TYPES = [
  'EMAIL',
  'PHONE',
  'CREDIT_CARD',
  'BANK_CARD',
  'CN_ID',
  'IP_ADDRESS',
  'URL_CREDENTIALS',
  'API_KEY',
  'PRIVATE_KEY',
  'PASSWORD',
  'PERSON',
  // Added after the first contract: bank account numbers in IBAN form (mod-97 checked).
  'IBAN',
  // Added with issue 12: Chinese messaging accounts and travel documents.
  'QQ',
  'WECHAT',
  'CN_PASSPORT',
] as const;
export type PiiType = (typeof PII_TYPES)[number];

export interface PiiSpan {
  /** Stable within one text: `${type}:${start}:${end}`. */
  id: string;
  type: PiiType;
  /** Offsets into the JavaScript string (UTF-16 code units), end exclusive. */
  start: number;
  end: number;
  value: string;
  /** 0..1; person names are low confidence. */
  confidence: number;
  /** Which detector found it (e.g. "libphonenumber", "luhn", "pattern:aws-access-key"). */
  detector: string;
}

export interface DetectOptions {
  /**
   * Person names (low confidence). By default (undefined or false) only names a cue introduces outright:
   * "我叫王小明", "联系人：李娜", "张先生", "My name is ...", "Dr. ...". true adds the weaker English
   * heuristics (greetings, "I'm ...", "said ..."); 'none' turns name detection off.
   */
  names?: boolean | 'none';
  /** Extra key patterns from the workspace config (seed 000's privacyFiltering.redactPatterns). */
  redactPatterns?: string[];
  /** Drop spans below this confidence (after overlap resolution). Default 0: keep all. */
  minConfidence?: number;
}

export interface RedactionResult {
  text: string;
  /** placeholder -> original value, e.g. "[EMAIL_1]" -> "a@b.c" */
  placeholders: Record<string, string>;
  /** the spans that were applied */
  applied: PiiSpan[];
}
