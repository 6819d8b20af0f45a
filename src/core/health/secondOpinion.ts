// An optional second opinion on contradiction and duplicate findings from an OpenAI-compatible
// chat endpoint. Off by default; configured in workbench.json under memoryHealth.secondOpinion
// ({ enabled, baseUrl, model, apiKeyEnv, timeoutMs }). The key is read from the named environment
// variable, never stored. Only the lines of a finding are sent.
import fs from 'node:fs';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { setFindingSecondOpinion } from '../db/repositories/healthFindings';
import { settingsPath } from '../lifecycle/settings';
import { listFindings, type Finding } from './findings';

export const secondOpinionSchema = z.object({
  enabled: z.boolean().default(false),
  baseUrl: z.string().url().default('http://127.0.0.1:11434/v1'),
  model: z.string().min(1).default('gpt-4o-mini'),
  apiKeyEnv: z.string().min(1).optional(),
  timeoutMs: z.number().int().min(100).max(120_000).default(15_000),
});
export type SecondOpinionConfig = z.infer<typeof secondOpinionSchema>;

/** Reads memoryHealth.secondOpinion from workbench.json; a missing or invalid section means off. */
export function secondOpinionConfig(workspaceDir: string): SecondOpinionConfig {
  try {
    const raw = JSON.parse(fs.readFileSync(settingsPath(workspaceDir), 'utf8')) as { memoryHealth?: { secondOpinion?: unknown } };
    const parsed = secondOpinionSchema.safeParse(raw.memoryHealth?.secondOpinion ?? {});
    return parsed.success ? parsed.data : secondOpinionSchema.parse({});
  } catch {
    return secondOpinionSchema.parse({});
  }
}

const SYSTEM =
  'You check an AI agent\'s memory files. Given numbered lines, answer with JSON only: {"verdict": "contradiction" | "duplicate" | "none", "reason": "<one sentence>"}. contradiction: they state different values for the same attribute of the same subject. duplicate: they state the same fact.';

async function ask(config: SecondOpinionConfig, finding: Finding): Promise<{ verdict: string; reason: string; model: string }> {
  const key = config.apiKeyEnv ? process.env[config.apiKeyEnv] : undefined;
  const res = await fetch(`${config.baseUrl.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({
      model: config.model,
      temperature: 0,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: finding.detail.lines.map((l, i) => `${i + 1}. ${l.text}`).join('\n') },
      ],
    }),
    signal: AbortSignal.timeout(config.timeoutMs),
  });
  if (!res.ok) throw new Error(`the endpoint answered HTTP ${res.status}`);
  const body = (await res.json()) as { choices?: Array<{ message?: { content?: string } }> };
  const text = body.choices?.[0]?.message?.content ?? '';
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  const parsed = z
    .object({ verdict: z.enum(['contradiction', 'duplicate', 'none']), reason: z.string().default('') })
    .safeParse(json ? JSON.parse(json) : null);
  if (!parsed.success) throw new Error('the answer was not the expected JSON verdict');
  return { ...parsed.data, model: config.model };
}

/** Asks for a second opinion on the open contradiction and duplicate findings; stores each answer (or error) on the finding. */
export async function secondOpinions(ctx: ServiceContext, config = secondOpinionConfig(ctx.workspaceDir)): Promise<Finding[]> {
  if (!config.enabled)
    throw new AppError(
      'Invalid',
      'the second opinion is off: set memoryHealth.secondOpinion.enabled (with baseUrl and model) in .openclaw-reflection/workbench.json',
    );
  const open = listFindings(ctx, { status: 'open' }).filter((f) => f.kind !== 'secret');
  for (const f of open) {
    let opinion: Finding['detail']['secondOpinion'];
    try {
      opinion = await ask(config, f);
    } catch (e) {
      opinion = { error: (e as Error).message };
    }
    setFindingSecondOpinion(ctx.db, f.id, JSON.stringify(opinion));
    f.detail.secondOpinion = opinion;
  }
  return open;
}
