// Answers and events checked against the contract's zod schemas outside production (tests and
// development): a service that drifts from its contract fails there, not in the renderer.
import type { ZodType } from 'zod';
import { changeEventSchema, contracts, type Channel, type ChangeEvent } from '../shared/contract';
import { AppError } from '../shared/errors';

/** Production trusts the compiler and skips the cost. */
export const checksContracts = (): boolean => process.env.NODE_ENV !== 'production';

function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[], root: string): string {
  return issues
    .slice(0, 3)
    .map((i) => `${[root, ...i.path.map(String)].join('.')}: ${i.message}`)
    .join('; ');
}

/** Fails with kind Internal, naming the channel and where the value departs from its output schema. */
export function checkOutput(channel: Channel, value: unknown): void {
  const schema: ZodType | undefined = contracts[channel].output;
  if (!schema || !checksContracts()) return;
  const r = schema.safeParse(value);
  if (!r.success) throw new AppError('Internal', `${channel} answered outside its contract: ${describeIssues(r.error.issues, 'output')}`);
}

/** Fails with kind Internal when a pushed event does not match the change-event schema. */
export function checkChangeEvent(event: ChangeEvent): void {
  if (!checksContracts()) return;
  const r = changeEventSchema.safeParse(event);
  if (!r.success)
    throw new AppError(
      'Internal',
      `a ${String((event as { type?: unknown }).type)} event outside its contract: ${describeIssues(r.error.issues, 'event')}`,
    );
}
