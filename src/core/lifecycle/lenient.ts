import type { z } from 'zod';

/**
 * Parses a settings value leaf by leaf: a bad leaf gets a warning naming its path and falls back
 * to its schema default, while its valid siblings are kept. A strict parse would throw the whole
 * file away for one typo, which is worse for a curator than keeping everything else they set.
 */
type AnySchema = z.ZodType;

interface Def {
  type: string;
  innerType?: AnySchema;
  shape?: Record<string, AnySchema>;
}

const defOf = (s: AnySchema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

function shapeOf(s: AnySchema): Record<string, AnySchema> | undefined {
  const d = defOf(s);
  if (d.type === 'object') return (s as unknown as { shape: Record<string, AnySchema> }).shape;
  if ((d.type === 'default' || d.type === 'optional' || d.type === 'prefault' || d.type === 'nullable') && d.innerType) {
    return shapeOf(d.innerType);
  }
  return undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const articles: Record<string, string> = {
  number: 'a number',
  boolean: 'a boolean',
  string: 'a string',
  object: 'an object',
  array: 'an array',
};

/** One readable line for the first zod issue, e.g. "storage.busyTimeoutMs: expected a number". */
export function describeIssue(path: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return path ? `${path}: invalid` : 'invalid'; // a failed parse always has an issue
  const where = [path, ...issue.path.map(String)].filter(Boolean).join('.');
  let what = issue.message;
  if (issue.code === 'invalid_type') what = `expected ${articles[String(issue.expected)] ?? String(issue.expected)}`;
  else if (issue.code === 'too_small') what = `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${String(issue.minimum)}`;
  else if (issue.code === 'too_big') what = `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`;
  else if (issue.code === 'invalid_value' && 'values' in issue)
    what = `expected one of ${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where}: ${what}`;
}

function fallback(schema: AnySchema): unknown {
  const r = schema.safeParse(undefined);
  return r.success ? r.data : undefined;
}

export function parseLenient(schema: AnySchema, value: unknown, path: string, warnings: string[]): unknown {
  const shape = shapeOf(schema);
  if (shape && (value === undefined || isPlainObject(value))) {
    if (value === undefined) {
      const whole = schema.safeParse(undefined);
      if (whole.success) return whole.data;
    }
    const input = (value ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(shape)) {
      const parsed = parseLenient(child, input[key], path ? `${path}.${key}` : key, warnings);
      if (parsed !== undefined) out[key] = parsed;
    }
    for (const key of Object.keys(input)) {
      if (!(key in shape)) warnings.push(`${path ? `${path}.` : ''}${key}: unknown setting, ignored`);
    }
    // Object-level rules (refinements) still apply; if they fail, the whole object falls back.
    const whole = schema.safeParse(out);
    if (whole.success) return whole.data;
    warnings.push(describeIssue(path, whole.error));
    return fallback(schema);
  }
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  warnings.push(describeIssue(path, r.error));
  return fallback(schema);
}
