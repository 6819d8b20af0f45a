// Seed 000's DatasetCollectionStrategy, editable: criteria switches, thresholds, quality weights and
// redact patterns. Checked here first (each problem names its setting), then saved through settings.set,
// which validates again and names the bad value; the next collect reads workbench.json.
import { useEffect, useState } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { useAction } from '../../lib/useAsync';

const BOOL_GROUPS = {
  positiveCriteria: ['wasWritten', 'noUserObjection'],
  negativeCriteria: ['gateProposedWrite', 'guardianRefused', 'userLaterRequestedSimilar', 'hasBehaviorCorrection'],
  manualReviewCriteria: ['lowConfidence', 'containsSensitiveInfo', 'userFeedbackReceived', 'mediumQualityScore'],
  autoApproveCriteria: ['hasConfirmedCorrection', 'highQualityScore', 'matchesApprovedPattern'],
} as const;
type Group = keyof typeof BOOL_GROUPS;

const WEIGHTS = ['conversationClarity', 'decisionConfidence', 'factVerifiability'] as const;
type Weight = (typeof WEIGHTS)[number];

interface StrategyDraft {
  flags: Record<Group, Record<string, boolean>>;
  minQualityScore: string;
  notRolledBackWithinDays: string;
  weights: Record<Weight, string>;
  redactPatterns: string;
}

type StrategyObject = Record<string, unknown>;
const obj = (v: unknown): StrategyObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as StrategyObject) : {});
const PREFIX = 'datasetCollection';

function toDraft(strategy: StrategyObject): StrategyDraft {
  const flags = {} as StrategyDraft['flags'];
  for (const g of Object.keys(BOOL_GROUPS) as Group[]) {
    flags[g] = {};
    for (const k of BOOL_GROUPS[g]) flags[g][k] = obj(strategy[g])[k] !== false;
  }
  const pos = obj(strategy.positiveCriteria);
  const w = obj(obj(strategy.qualityScoring).weights);
  const patterns = obj(strategy.privacyFiltering).redactPatterns;
  return {
    flags,
    minQualityScore: String(pos.minQualityScore ?? ''),
    notRolledBackWithinDays: String(pos.notRolledBackWithinDays ?? ''),
    weights: Object.fromEntries(WEIGHTS.map((k) => [k, String(w[k] ?? '')])) as StrategyDraft['weights'],
    redactPatterns: Array.isArray(patterns) ? patterns.join('\n') : '',
  };
}

const num = (s: string) => (s.trim() === '' ? NaN : Number(s));
const patternsOf = (d: StrategyDraft) =>
  d.redactPatterns
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);

/** Problems keyed by the setting's dotted name, so the message and the field say the same thing. */
export function strategyProblems(d: StrategyDraft): Record<string, string> {
  const out: Record<string, string> = {};
  const q = num(d.minQualityScore);
  if (!(q >= 0 && q <= 1)) out[`${PREFIX}.positiveCriteria.minQualityScore`] = 'a number from 0 to 1';
  const days = num(d.notRolledBackWithinDays);
  if (!(days >= 0 && days <= 3650)) out[`${PREFIX}.positiveCriteria.notRolledBackWithinDays`] = 'a number of days from 0 to 3650';
  let sum = 0;
  for (const k of WEIGHTS) {
    const v = num(d.weights[k]);
    if (!(v >= 0 && v <= 10)) out[`${PREFIX}.qualityScoring.weights.${k}`] = 'a number from 0 to 10';
    else sum += v;
  }
  if (!Object.keys(out).some((k) => k.includes('.weights.')) && sum <= 0)
    out[`${PREFIX}.qualityScoring.weights`] = 'at least one weight must be above 0';
  patternsOf(d).forEach((p, i) => {
    try {
      new RegExp(p);
    } catch (e) {
      out[`${PREFIX}.privacyFiltering.redactPatterns[${i}]`] = `"${p}" is not a valid regular expression (${(e as Error).message})`;
    }
  });
  return out;
}

function toPatch(d: StrategyDraft): StrategyObject {
  const patch: StrategyObject = {};
  for (const g of Object.keys(BOOL_GROUPS) as Group[]) patch[g] = { ...d.flags[g] };
  Object.assign(patch.positiveCriteria as StrategyObject, {
    minQualityScore: num(d.minQualityScore),
    notRolledBackWithinDays: num(d.notRolledBackWithinDays),
  });
  patch.qualityScoring = { weights: Object.fromEntries(WEIGHTS.map((k) => [k, num(d.weights[k])])) };
  patch.privacyFiltering = { redactPatterns: patternsOf(d) };
  return { [PREFIX]: patch };
}

const label = (k: string) => k.replace(/([A-Z])/g, ' $1').toLowerCase();

export function StrategyForm({ strategy, onSaved }: { strategy: StrategyObject; onSaved: () => void }) {
  const api = useApi();
  const [draft, setDraft] = useState<StrategyDraft>(() => toDraft(strategy));
  const [saved, setSaved] = useState(false);
  const source = JSON.stringify(strategy);
  // The stored strategy changed (saved here, or edited on disk): show it.
  const [baseline, setBaseline] = useState(source);
  useEffect(() => {
    if (source !== baseline) {
      setDraft(toDraft(strategy));
      setBaseline(source);
    }
  }, [source, baseline, strategy]);
  const dirty = JSON.stringify(toDraft(strategy)) !== JSON.stringify(draft);
  const problems = strategyProblems(draft);
  const save = useAction(async () => {
    await api.call('settings.set', { patch: toPatch(draft) });
    setSaved(true);
    onSaved();
  });
  const edit = (fn: (d: StrategyDraft) => StrategyDraft) => {
    setSaved(false);
    setDraft(fn);
  };
  const err = (key: string) => (problems[`${PREFIX}.${key}`] ? <span className="field-error">{problems[`${PREFIX}.${key}`]}</span> : null);
  const numField = (key: string, value: string, set: (v: string) => void, aria: string) => (
    <label className="strategy-num">
      {label(key.split('.').pop()!)}
      <input value={value} size={6} aria-label={aria} aria-invalid={!!problems[`${PREFIX}.${key}`]} onChange={(e) => set(e.target.value)} />
      {err(key)}
    </label>
  );
  return (
    <form
      className="stack strategy-form"
      data-testid="strategy-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!Object.keys(problems).length) void save.run();
      }}
    >
      <div className="strategy-grid">
        {(Object.keys(BOOL_GROUPS) as Group[]).map((g) => (
          <fieldset key={g}>
            <legend>{label(g)}</legend>
            {BOOL_GROUPS[g].map((k) => (
              <label key={k} className="inline small">
                <input
                  type="checkbox"
                  checked={draft.flags[g][k]}
                  onChange={(e) => edit((d) => ({ ...d, flags: { ...d.flags, [g]: { ...d.flags[g], [k]: e.target.checked } } }))}
                />
                {label(k)}
              </label>
            ))}
            {g === 'positiveCriteria' && (
              <>
                {numField(
                  'positiveCriteria.minQualityScore',
                  draft.minQualityScore,
                  (v) => edit((d) => ({ ...d, minQualityScore: v })),
                  'Minimum quality score',
                )}
                {numField(
                  'positiveCriteria.notRolledBackWithinDays',
                  draft.notRolledBackWithinDays,
                  (v) => edit((d) => ({ ...d, notRolledBackWithinDays: v })),
                  'Not rolled back within days',
                )}
              </>
            )}
          </fieldset>
        ))}
        <fieldset>
          <legend>quality weights</legend>
          {WEIGHTS.map((k) => (
            <div key={k}>
              {numField(
                `qualityScoring.weights.${k}`,
                draft.weights[k],
                (v) => edit((d) => ({ ...d, weights: { ...d.weights, [k]: v } })),
                `Weight ${label(k)}`,
              )}
            </div>
          ))}
          {err('qualityScoring.weights')}
        </fieldset>
        <fieldset>
          <legend>privacy redact patterns</legend>
          <textarea
            rows={5}
            className="mono small"
            value={draft.redactPatterns}
            aria-label="Redact patterns"
            onChange={(e) => edit((d) => ({ ...d, redactPatterns: e.target.value }))}
          />
          <span className="small muted">one regular expression per line</span>
          {Object.entries(problems)
            .filter(([k]) => k.includes('redactPatterns'))
            .map(([k, m]) => (
              <span key={k} className="field-error">
                {m}
              </span>
            ))}
        </fieldset>
      </div>
      {Object.keys(problems).length > 0 && (
        <ul className="field-error small" data-testid="strategy-problems">
          {Object.entries(problems).map(([k, m]) => (
            <li key={k}>
              <span className="mono">{k}</span>: {m}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage action="Saving the collection strategy" error={save.error} />
      <div className="row-flex">
        <button type="submit" className="primary" disabled={!dirty || save.pending || Object.keys(problems).length > 0}>
          Save strategy
        </button>
        <button type="button" disabled={!dirty} onClick={() => edit(() => toDraft(strategy))}>
          Discard changes
        </button>
        {saved && !dirty && (
          <span className="small muted" data-testid="strategy-saved">
            Saved to workbench.json; the next collect uses it.
          </span>
        )}
      </div>
    </form>
  );
}
