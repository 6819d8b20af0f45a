// Reading a sample's content by field path ("conversation.1.message"), the same paths PII spans use.

export function getPath(value: unknown, path: string): unknown {
  if (!path) return value;
  let cur: unknown = value;
  for (const key of path.split('.')) {
    if (cur == null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function textAt(value: unknown, path: string): string | null {
  const v = getPath(value, path);
  return typeof v === 'string' ? v : null;
}

/** Every text field of the content with its path, in document order. */
export function textFields(value: unknown, prefix = ''): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'string') out.push({ path: p, text: v });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, p ? `${p}.${i}` : String(i)));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
  };
  walk(value, prefix);
  return out;
}

/** The redacted content from the API: stored as JSON text or already parsed. */
export function parseRedacted(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function humanizePath(path: string): string {
  return path
    .split('.')
    .map((p) => (/^\d+$/.test(p) ? `#${Number(p) + 1}` : p.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()))
    .join(' › ');
}
