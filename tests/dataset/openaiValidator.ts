// The OpenAI cookbook's chat fine-tuning data checks ("Data preparation and analysis for chat model
// fine-tuning"), ported to TypeScript, with tool messages allowed as formats.md asks.
export type FormatErrors = Record<string, number>;

const ALLOWED_KEYS = new Set(['role', 'content', 'name', 'function_call', 'weight', 'tool_calls', 'tool_call_id']);
const ALLOWED_ROLES = new Set(['system', 'user', 'assistant', 'function', 'tool']);

function checkMessages(messages: unknown, errors: FormatErrors, requireAssistant: boolean): void {
  const bump = (k: string) => (errors[k] = (errors[k] ?? 0) + 1);
  if (!Array.isArray(messages) || messages.length === 0) {
    bump('missing_messages_list');
    return;
  }
  for (const message of messages as Record<string, unknown>[]) {
    if (typeof message !== 'object' || message === null) {
      bump('message_missing_key');
      continue;
    }
    if (!('role' in message) || !('content' in message)) bump('message_missing_key');
    if (Object.keys(message).some((k) => !ALLOWED_KEYS.has(k))) bump('message_unrecognized_key');
    if (!ALLOWED_ROLES.has(message.role as string)) bump('unrecognized_role');
    const content = message.content;
    const call = message.function_call ?? message.tool_calls;
    if ((!content && !call) || (content !== null && content !== undefined && typeof content !== 'string')) bump('missing_content');
    if (message.weight !== undefined && message.weight !== 0 && message.weight !== 1) bump('invalid_weight');
  }
  if (requireAssistant && !(messages as Record<string, unknown>[]).some((m) => m?.role === 'assistant')) {
    bump('example_missing_assistant_message');
  }
}

/** Errors by key over one JSONL file's examples; an empty object means every check passed. */
export function validateChatExamples(examples: unknown[]): FormatErrors {
  const errors: FormatErrors = {};
  for (const ex of examples) {
    if (typeof ex !== 'object' || ex === null || Array.isArray(ex)) {
      errors.data_type = (errors.data_type ?? 0) + 1;
      continue;
    }
    checkMessages((ex as Record<string, unknown>).messages, errors, true);
  }
  return errors;
}

/** The same checks for preference pairs: input.messages, then one assistant message per output. */
export function validatePreferenceExamples(examples: unknown[]): FormatErrors {
  const errors: FormatErrors = {};
  for (const ex of examples) {
    if (typeof ex !== 'object' || ex === null || Array.isArray(ex)) {
      errors.data_type = (errors.data_type ?? 0) + 1;
      continue;
    }
    const e = ex as Record<string, unknown>;
    checkMessages((e.input as Record<string, unknown> | undefined)?.messages, errors, false);
    for (const key of ['preferred_output', 'non_preferred_output']) {
      const out = e[key];
      if (!Array.isArray(out) || out.length !== 1 || (out[0] as Record<string, unknown>)?.role !== 'assistant') {
        errors[`invalid_${key}`] = (errors[`invalid_${key}`] ?? 0) + 1;
      }
      checkMessages(out, errors, true);
    }
  }
  return errors;
}

export function readJsonl(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return '<invalid json>';
      }
    });
}
