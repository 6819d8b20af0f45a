// Model comparison on the plugin's eval runs (reflection import evals <plugin-root> brings in
// evals/results/*.json): each model's latest run per suite, scored on the scenarios every model ran,
// so a curator compares like with like. Scenario ids and labels are data: rendered as text only.
import { Bar } from 'react-chartjs-2';
import type { EvalSuiteComparison } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatTime } from '../../lib/format';
import { useApiQuery } from '../../lib/queries';

const HARDEST_SHOWN = 12;
const pct = (n: number, d: number) => (d ? `${Math.round((100 * n) / d)}%` : '—');

function SuiteComparison({ suite, text, grid }: { suite: EvalSuiteComparison; text: string; grid: string }) {
  const models = [...suite.models].sort((a, b) => b.commonPassed - a.commonPassed || b.passed - a.passed);
  const label = (m: (typeof models)[number]) => m.modelLabel ?? m.modelId;
  const hardest = suite.scenarios.slice(0, HARDEST_SHOWN);
  return (
    <div data-testid={`eval-suite-${suite.suite}`}>
      <h3 className="small">
        {suite.suite} · {suite.commonScenarios} scenarios run by every model
      </h3>
      <div className="chart-box" style={{ height: Math.max(80, models.length * 28 + 30) }}>
        <Bar
          aria-label={`Pass rate per model, ${suite.suite}`}
          data={{
            labels: models.map(label),
            datasets: [
              {
                label: 'pass rate on common scenarios (%)',
                data: models.map((m) => (suite.commonScenarios ? (100 * m.commonPassed) / suite.commonScenarios : 0)),
                backgroundColor: '#1a7f37',
              },
            ],
          }}
          options={{
            indexAxis: 'y',
            maintainAspectRatio: false,
            animation: false,
            scales: {
              x: { min: 0, max: 100, ticks: { color: text }, grid: { color: grid } },
              y: { ticks: { color: text }, grid: { color: grid } },
            },
            plugins: { legend: { display: false } },
          }}
        />
      </div>
      <table className="data-table" data-testid="eval-models-table">
        <thead>
          <tr>
            <th>Model</th>
            <th>Common</th>
            <th>All scenarios</th>
            <th>Errors</th>
            <th>Run</th>
          </tr>
        </thead>
        <tbody>
          {models.map((m) => (
            <tr key={m.modelId} data-model={m.modelId}>
              <td title={m.modelId}>{label(m)}</td>
              <td>
                {m.commonPassed}/{suite.commonScenarios} ({pct(m.commonPassed, suite.commonScenarios)})
              </td>
              <td>
                {m.passed}/{m.total} ({pct(m.passed, m.total)})
              </td>
              <td>{Object.values(m.errors).reduce((a, b) => a + b, 0)}</td>
              <td className="muted small">{formatTime(m.runAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hardest.length > 0 && (
        <details style={{ marginTop: 6 }}>
          <summary className="small">Hardest scenarios (pass ✓ / fail ✗ per model)</summary>
          <table className="data-table" data-testid="eval-scenarios-table">
            <thead>
              <tr>
                <th>Scenario</th>
                {models.map((m) => (
                  <th key={m.modelId}>{label(m)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {hardest.map((s) => (
                <tr key={s.scenarioId}>
                  <td>{s.scenarioId}</td>
                  {models.map((m) => (
                    <td key={m.modelId}>{s.results[m.modelId] === undefined ? '·' : s.results[m.modelId] ? '✓' : '✗'}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </div>
  );
}

export function EvalModelsCard({ text, grid }: { text: string; grid: string }) {
  const q = useApiQuery('stats.evalModels', {}, { throttleMs: 10_000 });
  return (
    <div className="card" data-testid="eval-models">
      <h2>Models on the eval sets</h2>
      <ErrorMessage action="Loading eval runs" error={q.error} onRetry={() => void q.refetch()} />
      {q.data?.length === 0 && (
        <div className="muted small">
          No eval runs yet: import the plugin's evals/results with “reflection import evals &lt;plugin-root&gt;”.
        </div>
      )}
      {q.data?.map((s) => (
        <SuiteComparison key={s.suite} suite={s} text={text} grid={grid} />
      ))}
    </div>
  );
}
