// OpenClaw wraps what the user typed in untrusted-metadata envelopes (fenced JSON blocks) and a
// timestamp prefix. The curator should read what the user wrote; the envelope is kept as metadata.

export interface UserEnvelope {
  text: string;
  /** Parsed blocks by label: conversationInfo, sender, ... (raw text when the JSON does not parse). */
  blocks: Record<string, unknown>;
  /** The `[Sun 2026-03-08 22:03 GMT+9]` prefix, without brackets. */
  sentAt?: string;
}

const BLOCK = /^([A-Za-z][A-Za-z ]{0,40}?) \(untrusted metadata\):[ \t]*\r?\n```[a-z]*[ \t]*\r?\n([\s\S]*?)\r?\n```[ \t]*(?:\r?\n)*/;
const SENT_AT =
  /^\[((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?(?: [A-Z]{2,5}(?:[+-]\d{1,2}(?::?\d{2})?)?)?)\] /;

const camel = (label: string) =>
  label
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');

export function stripUserEnvelope(raw: string): UserEnvelope {
  let text = raw;
  const blocks: Record<string, unknown> = {};
  for (let i = 0; i < 8; i++) {
    const m = BLOCK.exec(text.trimStart());
    if (!m) break;
    const [, label = '', raw = ''] = m; // BLOCK captures the label and the body
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      /* keep the raw text: it is still metadata, just not JSON */
    }
    blocks[camel(label)] = value;
    text = text.trimStart().slice(m[0].length);
  }
  let sentAt: string | undefined;
  const p = SENT_AT.exec(text);
  if (p) {
    sentAt = p[1];
    text = text.slice(p[0].length);
  }
  return { text, blocks, sentAt };
}

const REPLY_TAG = /^\s*\[\[\s*(reply_to_current|reply_to\s*:\s*[^\]\s]+)\s*\]\]\s*/;

/** Strips OpenClaw's reply directives (`[[reply_to_current]]`) from assistant text. */
export function stripReplyTags(raw: string): { text: string; tags: string[] } {
  let text = raw;
  const tags: string[] = [];
  for (let m = REPLY_TAG.exec(text); m; m = REPLY_TAG.exec(text)) {
    tags.push((m[1] ?? '').replace(/\s+/g, ''));
    text = text.slice(m[0].length);
  }
  return { text, tags };
}
