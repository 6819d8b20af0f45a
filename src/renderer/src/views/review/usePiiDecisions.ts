// The PII values of the shown sample: which one is selected, and keep / redact decisions for one value,
// in this sample only or (through pii.decideValue) in its session, the workspace or everywhere.
import { useEffect, useState } from 'react';
import type { PiiSpanDto } from '../../../../shared/contract';
import { groupSpans, spanKey, type PiiGroup } from '../../components/PiiText';
import type { ApiClient } from '../../lib/api';
import type { DecisionScope } from './PiiValuePanel';
import type { useReviewQueue } from './useReviewQueue';

type Queue = ReturnType<typeof useReviewQueue>;

export function usePiiDecisions(api: ApiClient, q: Queue) {
  const [scope, setScope] = useState<DecisionScope>('workspace');
  const [spanIndex, setSpanIndex] = useState(0);
  const [piiTick, setPiiTick] = useState(0);
  const [piiError, setPiiError] = useState<unknown>(null);
  const groups = groupSpans(q.detail?.piiSpans ?? []);
  const selectedGroup: PiiGroup | undefined = groups[Math.min(spanIndex, groups.length - 1)];
  useEffect(() => setSpanIndex(0), [q.current?.id]);

  // Per sample: every span of the value in this sample follows, since the export hides a value wherever it appears.
  const decideInSample = async (group: PiiGroup, decision: 'redact' | 'keep') => {
    const sampleId = q.detail?.id;
    if (!sampleId) return;
    for (const s of group.spans) if (s.decision !== decision) await q.setSpanDecision(sampleId, s.id, decision);
  };
  // Once per value: every sample of the session, the workspace or everywhere follows (undo in the panel).
  const decideGroup = async (group: PiiGroup, decision: 'redact' | 'keep') => {
    if (scope === 'sample') return decideInSample(group, decision);
    const sample = q.detail;
    if (!sample) return;
    try {
      await api.call('pii.decideValue', {
        value: group.value,
        decision,
        scope,
        sessionId: scope === 'session' ? sample.sessionId : undefined,
      });
      setPiiError(null);
      q.forgetDetails();
      await q.refreshDetail(sample.id);
      setPiiTick((t) => t + 1);
    } catch (e) {
      setPiiError(e);
    }
  };
  const toggleGroup = (group: PiiGroup) => void decideGroup(group, group.decision === 'keep' ? 'redact' : 'keep');
  const toggleSpan = (span: PiiSpanDto) => {
    const g = groups.find((x) => x.key === spanKey(span));
    if (g) toggleGroup(g);
  };
  const selectNext = () => setSpanIndex((i) => (groups.length ? (i + 1) % groups.length : 0));
  const selectPrevious = () => setSpanIndex((i) => (groups.length ? (i - 1 + groups.length) % groups.length : 0));
  return {
    groups,
    selectedGroup,
    setSpanIndex,
    selectNext,
    selectPrevious,
    decideGroup,
    toggleGroup,
    toggleSpan,
    piiTick,
    piiError,
    scope,
    setScope,
  };
}

export type PiiDecisions = ReturnType<typeof usePiiDecisions>;
