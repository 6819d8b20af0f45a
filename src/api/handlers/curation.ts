// Review at scale and team curation: queue, reservations, bulk actions, history, guidelines,
// per-value PII decisions, curators, second pass and agreement.
import { AppError } from '../../shared/errors';
import { bulkReview } from '../../core/curation/bulk';
import { listCurators, setLocalCurator, whoAmI } from '../../core/curation/curators';
import { getGuidelines, getReviewSettings, setGuidelines, setReviewSettings } from '../../core/curation/guidelines';
import { reviewHistory } from '../../core/curation/history';
import { decidePiiValue, listPiiValueDecisions, listPiiValues, undoPiiValueDecision } from '../../core/curation/piiValues';
import { listQueue } from '../../core/curation/queue';
import { releaseSamples, reserveSamples } from '../../core/curation/reservations';
import { adjudicate, agreementReport, startSecondPass } from '../../core/curation/secondPass';
import type { Handlers } from '../registry';
import { sampleRowDto } from './dataset';

export const curationHandlers = {
  'review.queue': (input, env) => {
    const page = listQueue(env.session.serviceContext(), input);
    return {
      items: page.items.map((s) => ({ ...sampleRowDto(s), annotatedBy: s.annotatedBy })),
      nextCursor: page.nextCursor,
      total: page.total,
    };
  },
  'review.reserve': (input, env) => reserveSamples(env.session.serviceContext(), input.ids),
  'review.release': (input, env) => ({ released: releaseSamples(env.session.serviceContext(), input.ids) }),
  'review.bulk': (input, env) => bulkReview(env.session.serviceContext(), input),
  'review.history': (input, env) => reviewHistory(env.session.serviceContext(), input.limit),
  'review.guidelines': (_input, env) => getGuidelines(env.session.serviceContext()),
  'review.setGuidelines': (input, env) => setGuidelines(env.session.serviceContext(), input.markdown),
  'review.settings': (_input, env) => getReviewSettings(env.session.serviceContext()),
  'review.setSettings': (input, env) => setReviewSettings(env.session.serviceContext(), input),
  'review.startSecondPass': (input, env) => startSecondPass(env.session.serviceContext(), input),
  'review.agreement': (_input, env) => agreementReport(env.session.serviceContext()),
  'review.adjudicate': (input, env) => {
    adjudicate(env.session.serviceContext(), input);
    return { ok: true as const };
  },
  'pii.values': (input, env) => listPiiValues(env.session.serviceContext(), input),
  'pii.decideValue': (input, env) => decidePiiValue(env.session.serviceContext(), input),
  'pii.undoValueDecision': (input, env) => undoPiiValueDecision(env.session.serviceContext(), input.id),
  'pii.valueDecisions': (_input, env) => listPiiValueDecisions(env.session.serviceContext()),
  'curators.me': (_input, env) => whoAmI(env.session.serviceContext()),
  'curators.setLocalName': (input, env) => {
    const ctx = env.session.serviceContext();
    // Only the desktop user (or the owner's session token in browser mode) names the local curator.
    if (!whoAmI(ctx).isLocal) throw new AppError('Invalid', 'a browser-mode curator cannot rename the local curator');
    return setLocalCurator(ctx, input.name);
  },
  'curators.list': (_input, env) => listCurators(env.session.serviceContext()),
} satisfies Partial<Handlers>;
