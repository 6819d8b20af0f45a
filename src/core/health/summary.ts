// The numbers the Stats view shows: open findings, flagged writes and the chain's state.
import type { ServiceContext } from '../context';
import { countOpenFindingsByKind } from '../db/repositories/healthFindings';
import { flaggedWriteCount } from './secrets';
import { verifyChains } from './verify';

export interface HealthSummary {
  openFindings: { contradiction: number; duplicate: number; secret: number };
  flaggedWrites: number;
  flaggedSecretWrites: number;
  chain: { ok: boolean; breaks: number; versions: number; rechains: number; checkedAt: number };
}

export function healthSummary(ctx: ServiceContext): HealthSummary {
  const openFindings = { contradiction: 0, duplicate: 0, secret: 0 };
  for (const r of countOpenFindingsByKind(ctx.db)) openFindings[r.kind] = r.n;
  const flagged = flaggedWriteCount(ctx.db);
  const v = verifyChains(ctx);
  return {
    openFindings,
    flaggedWrites: flagged.writes,
    flaggedSecretWrites: flagged.secrets,
    chain: {
      ok: v.ok,
      breaks: v.breaks.length,
      versions: v.files.reduce((n, f) => n + f.versions, 0),
      rechains: v.events.length,
      checkedAt: v.checkedAt,
    },
  };
}
