// The team's review guidelines (Markdown) and reject reasons, kept in the workspace's state folder so
// they travel with the workspace and every curator of a shared host sees the same ones.
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { STATE_DIR } from '../db/connection';
import type { ServiceContext } from '../context';

export const GUIDELINES_FILE = 'review-guidelines.md';
export const REVIEW_SETTINGS_FILE = 'review.json';
export const MAX_GUIDELINES_CHARS = 100_000;

export const DEFAULT_REJECT_REASONS = ['Wrong fact', 'Not worth remembering', 'Contains private data', 'Duplicate', 'Unclear conversation'];

export const reviewSettingsSchema = z.strictObject({
  rejectReasons: z
    .array(z.string().trim().min(1, 'a reject reason cannot be empty').max(80, 'a reject reason has at most 80 characters'))
    .max(9, 'at most 9 reject reasons (one key each)')
    .refine((xs) => new Set(xs.map((x) => x.toLowerCase())).size === xs.length, 'reject reasons must differ'),
});
export type ReviewSettings = z.infer<typeof reviewSettingsSchema>;

const fileOf = (ctx: ServiceContext, name: string) => path.join(ctx.workspaceDir, STATE_DIR, name);

function readIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AppError('Io', `cannot read ${path.basename(file)}: ${(e as Error).message}`);
  }
}

export function getGuidelines(ctx: ServiceContext): { markdown: string; updatedAt: number | null } {
  const file = fileOf(ctx, GUIDELINES_FILE);
  const text = readIfExists(file);
  return { markdown: text ?? '', updatedAt: text == null ? null : fs.statSync(file).mtimeMs };
}

export function setGuidelines(ctx: ServiceContext, markdown: string): { markdown: string; updatedAt: number } {
  if (typeof markdown !== 'string') throw new AppError('Invalid', 'guidelines must be text');
  if (markdown.length > MAX_GUIDELINES_CHARS)
    throw new AppError('Invalid', `guidelines are longer than ${MAX_GUIDELINES_CHARS} characters`);
  const file = fileOf(ctx, GUIDELINES_FILE);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic.sync(file, markdown);
  return { markdown, updatedAt: fs.statSync(file).mtimeMs };
}

export function getReviewSettings(ctx: ServiceContext): ReviewSettings {
  const text = readIfExists(fileOf(ctx, REVIEW_SETTINGS_FILE));
  if (text == null) return { rejectReasons: DEFAULT_REJECT_REASONS };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError('Invalid', `${REVIEW_SETTINGS_FILE} is not valid JSON: fix or delete it`);
  }
  const r = reviewSettingsSchema.safeParse(raw);
  if (!r.success) throw new AppError('Invalid', `${REVIEW_SETTINGS_FILE}: ${r.error.issues[0]?.message}`);
  return r.data;
}

export function setReviewSettings(ctx: ServiceContext, input: unknown): ReviewSettings {
  const r = reviewSettingsSchema.safeParse(input);
  if (!r.success) throw new AppError('Invalid', `review settings: ${r.error.issues[0]?.message}`);
  const file = fileOf(ctx, REVIEW_SETTINGS_FILE);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic.sync(file, `${JSON.stringify(r.data, null, 2)}\n`);
  return r.data;
}
