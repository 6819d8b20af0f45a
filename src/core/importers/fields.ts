import { parseTime } from './ids';
import { skipLine } from './stream';

/** A parsed JSON object whose fields are read with the checks below. */
export type Obj = Record<string, unknown>;

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** Field readers that skip the line with a reason naming the field when it is missing or mistyped. */
export function str(o: Obj, key: string, where = ''): string {
  const v = o[key];
  if (typeof v !== 'string') skipLine(`${where}${key}: ${v === undefined ? 'missing' : `expected a string, got ${typeName(v)}`}`);
  return v as string;
}

export function optStr(o: Obj, key: string, where = ''): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') skipLine(`${where}${key}: expected a string, got ${typeName(v)}`);
  return v as string;
}

export function obj(o: Obj, key: string, where = ''): Obj {
  const v = o[key];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    skipLine(`${where}${key}: ${v === undefined ? 'missing' : `expected an object, got ${typeName(v)}`}`);
  }
  return v as Obj;
}

export function optObj(o: Obj, key: string, where = ''): Obj | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) skipLine(`${where}${key}: expected an object, got ${typeName(v)}`);
  return v as Obj;
}

export function time(o: Obj, key: string, where = ''): number {
  const v = o[key];
  const t = parseTime(v);
  if (t === undefined) skipLine(`${where}${key}: ${v === undefined ? 'missing' : `not a valid time (${typeName(v)})`}`);
  return t as number;
}

export function oneOf<T extends string>(o: Obj, key: string, allowed: readonly T[], where = ''): T {
  const v = str(o, key, where);
  if (!(allowed as readonly string[]).includes(v)) skipLine(`${where}${key}: unknown value ${JSON.stringify(v.slice(0, 40))}`);
  return v as T;
}

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An ISO 8601 time string (log timestamps); numbers are a wrong type here. */
export function isoTime(o: Obj, key: string, where = ''): number {
  const v = o[key];
  if (typeof v !== 'string') skipLine(`${where}${key}: ${v === undefined ? 'missing' : `expected an ISO time string, got ${typeName(v)}`}`);
  const t = parseTime(v);
  if (t === undefined) skipLine(`${where}${key}: not a valid time (${JSON.stringify(String(v).slice(0, 40))})`);
  return t as number;
}
