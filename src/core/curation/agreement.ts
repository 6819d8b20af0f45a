// Inter-annotator agreement between the first and second pass: raw agreement and Cohen's kappa,
// overall and per label (one label against the rest).

import type { AgreementFigure } from '../../shared/contract/curation';

/** n pairs, raw agreement and Cohen's kappa (null when undefined: no pairs, or chance agreement is 1). */

/** Cohen's kappa for paired labels: (po - pe) / (1 - pe). */
export function cohensKappa(pairs: readonly (readonly [string, string])[]): AgreementFigure {
  const n = pairs.length;
  if (!n) return { n, raw: null, kappa: null };
  const a = new Map<string, number>();
  const b = new Map<string, number>();
  let same = 0;
  for (const [x, y] of pairs) {
    if (x === y) same++;
    a.set(x, (a.get(x) ?? 0) + 1);
    b.set(y, (b.get(y) ?? 0) + 1);
  }
  const po = same / n;
  let pe = 0;
  for (const [label, count] of a) pe += (count / n) * ((b.get(label) ?? 0) / n);
  // Both curators used one and the same label for everything: agreement is total but kappa is undefined.
  const kappa = pe >= 1 ? null : (po - pe) / (1 - pe);
  return { n, raw: po, kappa };
}

/** Per label: that label against all others, so each label gets its own kappa. */
export function agreementPerLabel(pairs: readonly (readonly [string, string])[]): Record<string, AgreementFigure> {
  const labels = new Set(pairs.flatMap(([x, y]) => [x, y]));
  const out: Record<string, AgreementFigure> = {};
  for (const label of [...labels].sort()) {
    out[label] = cohensKappa(pairs.map(([x, y]) => [x === label ? label : 'other', y === label ? label : 'other'] as const));
  }
  return out;
}
