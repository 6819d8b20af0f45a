// Memory health channels: blame, findings, secret removal, erasure and verification.
import { recordExternalChanges } from '../../core/guardian';
import {
  blameFile,
  eraseValue,
  flagsForAudits,
  healthSummary,
  listFindings,
  removeSecretsOfWrite,
  resolveFinding,
  scanMemoryHealth,
  secondOpinions,
  verifyChains,
} from '../../core/health';
import type { Handlers } from '../registry';

type HealthChannel =
  | 'health.blame'
  | 'health.scan'
  | 'health.findings'
  | 'health.resolve'
  | 'health.removeSecrets'
  | 'health.writeFlags'
  | 'health.summary'
  | 'health.verify'
  | 'health.erase'
  | 'health.secondOpinion';

export const healthHandlers: Pick<Handlers, HealthChannel> = {
  'health.blame': (input, env) => blameFile(env.session.serviceContext(), input),
  'health.scan': (_input, env) => {
    const ctx = env.session.serviceContext();
    recordExternalChanges(ctx);
    return scanMemoryHealth(ctx);
  },
  'health.findings': (input, env) => listFindings(env.session.serviceContext(), input),
  'health.resolve': (input, env) => resolveFinding(env.session.serviceContext(), input),
  'health.removeSecrets': (input, env) => removeSecretsOfWrite(env.session.serviceContext(), input),
  'health.writeFlags': (input, env) => [...flagsForAudits(env.session.serviceContext().db, input.auditIds).values()],
  'health.summary': (_input, env) => healthSummary(env.session.serviceContext()),
  'health.verify': (_input, env) => verifyChains(env.session.serviceContext()),
  'health.erase': (input, env) => eraseValue(env.session.serviceContext(), input),
  'health.secondOpinion': (_input, env) => secondOpinions(env.session.serviceContext()),
};
