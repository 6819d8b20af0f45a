import { BarElement, CategoryScale, Chart as ChartJS, Legend, LinearScale, Tooltip } from 'chart.js';
import { Bar } from 'react-chartjs-2';
import { GATE_DECISIONS } from '../../../shared/domain';
import { ErrorMessage } from '../components/ErrorMessage';
import { useApi } from '../lib/api';
import { formatCount } from '../lib/format';
import { useApiQuery } from '../lib/queries';
import { useAsync } from '../lib/useAsync';
import { EvalModelsCard } from './stats/EvalModelsCard';
import { HealthCard } from './health/HealthCard';
import { AgreementPanel } from './review/AgreementPanel';

// Only the pieces used: chart.js is tree-shakable when registered piecemeal.
ChartJS.register(CategoryScale, LinearScale, BarElement, Tooltip, Legend);

const STATUS_COLORS: Record<string, string> = {
  written: '#1a7f37',
  approved: '#1a7f37',
  auto_approved: '#0a7f8c',
  refused: '#c4314b',
  rejected: '#c4314b',
  failed: '#b35c00',
  needs_review: '#b35c00',
  skipped: '#8c96a3',
  pending: '#8c96a3',
  rolled_back: '#8250df',
};
const PALETTE = ['#8c96a3', '#2f6fed', '#1a7f37', '#b35c00', '#8250df', '#c4314b', '#0a7f8c'];

function useCssColor(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

export function StatsView() {
  const api = useApi();
  const gate = useApiQuery('gate.stats', { groupBy: 'daily', limit: 60 }, { throttleMs: 10_000 });
  const dataset = useApiQuery('dataset.stats', {}, { throttleMs: 10_000 });
  // Exact counts per status, all time (counted from the status index in main).
  const writes = useAsync(async () => (await api.call('guardian.stats', {})).map((c) => [c.status, c.count] as const), [], {
    throttleMs: 10_000,
    areas: ['writes'],
  });
  const text = useCssColor('--text', '#333');
  const grid = useCssColor('--border', '#ddd');
  const axes = {
    x: { ticks: { color: text }, grid: { color: grid } },
    y: { ticks: { color: text }, grid: { color: grid }, beginAtZero: true },
  };
  const buckets = [...(gate.data?.buckets ?? [])].sort((a, b) => a.key.localeCompare(b.key));
  return (
    <div className="view" data-testid="view-stats">
      <div className="view-header">
        <h1>Stats</h1>
        {gate.data && (
          <span className="muted small">
            {formatCount(gate.data.totals.total)} decisions · average gate latency {gate.data.totals.avgLatencyMs ?? '—'} ms
          </span>
        )}
      </div>
      <div className="charts">
        <div className="card">
          <h2>Decisions per day, by type</h2>
          <ErrorMessage action="Loading decision stats" error={gate.error} onRetry={() => void gate.refetch()} />
          <div className="chart-box">
            <Bar
              aria-label="Decisions per day"
              data={{
                labels: buckets.map((b) => b.key),
                datasets: GATE_DECISIONS.map((d, i) => ({
                  label: d,
                  data: buckets.map((b) => b.byDecision[d] ?? 0),
                  backgroundColor: PALETTE[i % PALETTE.length],
                  stack: 'd',
                })),
              }}
              options={{
                maintainAspectRatio: false,
                animation: false,
                scales: { x: { ...axes.x, stacked: true }, y: { ...axes.y, stacked: true } },
                plugins: { legend: { labels: { color: text, boxWidth: 12 } } },
              }}
            />
          </div>
        </div>
        <div className="card">
          <h2>Write outcomes</h2>
          <ErrorMessage action="Loading write outcomes" error={writes.error} onRetry={writes.reload} />
          <div className="chart-box">
            <Bar
              aria-label="Write outcomes"
              data={{
                labels: (writes.data ?? []).map(([s]) => s),
                datasets: [
                  {
                    label: 'writes',
                    data: (writes.data ?? []).map(([, n]) => n ?? 0),
                    backgroundColor: (writes.data ?? []).map(([s]) => STATUS_COLORS[s] ?? '#8c96a3'),
                  },
                ],
              }}
              options={{ maintainAspectRatio: false, animation: false, scales: axes, plugins: { legend: { display: false } } }}
            />
          </div>
        </div>
        <div className="card">
          <h2>Quality-score distribution</h2>
          {dataset.data?.total === 0 && <div className="muted small">No samples yet: collect them in Datasets.</div>}
          <ErrorMessage action="Loading dataset stats" error={dataset.error} onRetry={() => void dataset.refetch()} />
          <div className="chart-box">
            <Bar
              aria-label="Quality distribution"
              data={{
                labels: (dataset.data?.qualityDistribution ?? []).map((b) => `${b.from.toFixed(1)}-${b.to.toFixed(1)}`),
                datasets: [
                  { label: 'samples', data: (dataset.data?.qualityDistribution ?? []).map((b) => b.count), backgroundColor: '#2f6fed' },
                ],
              }}
              options={{ maintainAspectRatio: false, animation: false, scales: axes, plugins: { legend: { display: false } } }}
            />
          </div>
        </div>
        <div className="card">
          <h2>Review progress</h2>
          <div className="chart-box">
            <Bar
              aria-label="Review progress"
              data={{
                labels: Object.keys(dataset.data?.byStatus ?? {}),
                datasets: [
                  {
                    label: 'samples',
                    data: Object.values(dataset.data?.byStatus ?? {}).map((n) => n ?? 0),
                    backgroundColor: Object.keys(dataset.data?.byStatus ?? {}).map((s) => STATUS_COLORS[s] ?? '#8c96a3'),
                  },
                ],
              }}
              options={{
                indexAxis: 'y',
                maintainAspectRatio: false,
                animation: false,
                scales: axes,
                plugins: { legend: { display: false } },
              }}
            />
          </div>
          {dataset.data && (
            <div className="small muted">
              {formatCount(dataset.data.reviewed)} of {formatCount(dataset.data.total)} samples reviewed
            </div>
          )}
        </div>
        <EvalModelsCard text={text} grid={grid} />
        <HealthCard />
        <AgreementPanel />
      </div>
    </div>
  );
}
