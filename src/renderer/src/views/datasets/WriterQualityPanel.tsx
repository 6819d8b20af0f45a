// The writer the curator is judging: the figures a team uses to decide whether a fine-tuned gate is
// better (gate precision and recall per decision, guardian accuracy, over-writes, churn, weekly trend).
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { useAsync } from '../../lib/useAsync';

const num = (x: number | null) => (x === null ? '–' : x.toFixed(2));

export function WriterQualityPanel() {
  const api = useApi();
  const q = useAsync(() => api.call('dataset.writerQuality', {}), []);
  const w = q.data;
  return (
    <div className="card stack" data-testid="writer-quality">
      <h2>Writer quality (from curator labels)</h2>
      <ErrorMessage action="Loading writer quality" error={q.error} onRetry={q.reload} />
      {w && w.judgedDecisions === 0 && (
        <span className="muted small">No judged decisions yet: approve, correct, roll back or mark missed writes in review.</span>
      )}
      {w && w.judgedDecisions > 0 && (
        <>
          <span className="small">
            {w.judgedDecisions} judged decisions · gate accuracy {num(w.gateAccuracy)} · over-write rate {num(w.overWriteRate)} (
            {w.overWrites} of {w.judgedWrites} writes)
          </span>
          <div className="side-by-side">
            <table className="small">
              <thead>
                <tr>
                  <th>gate decision</th>
                  <th>predicted</th>
                  <th>should be</th>
                  <th>precision</th>
                  <th>recall</th>
                </tr>
              </thead>
              <tbody>
                {w.gate
                  .filter((g) => g.predicted || g.support)
                  .map((g) => (
                    <tr key={g.decision}>
                      <td>{g.decision}</td>
                      <td>{g.predicted}</td>
                      <td>{g.support}</td>
                      <td>{num(g.precision)}</td>
                      <td>{num(g.recall)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
            <table className="small">
              <thead>
                <tr>
                  <th>guardian</th>
                  <th>judged</th>
                  <th>accuracy</th>
                </tr>
              </thead>
              <tbody>
                {w.guardian.map((g) => (
                  <tr key={g.action}>
                    <td>{g.action}</td>
                    <td>{g.judged}</td>
                    <td>{num(g.accuracy)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <table className="small">
              <thead>
                <tr>
                  <th>file</th>
                  <th>writes</th>
                  <th>churn</th>
                </tr>
              </thead>
              <tbody>
                {w.churn
                  .filter((c) => c.writes)
                  .map((c) => (
                    <tr key={c.file}>
                      <td>{c.file}</td>
                      <td>{c.writes}</td>
                      <td>{num(c.churn)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
            <table className="small">
              <thead>
                <tr>
                  <th>week</th>
                  <th>judged</th>
                  <th>accuracy</th>
                  <th>over-writes</th>
                </tr>
              </thead>
              <tbody>
                {w.weekly.map((x) => (
                  <tr key={x.week}>
                    <td>{x.week}</td>
                    <td>{x.judged}</td>
                    <td>{num(x.accuracy)}</td>
                    <td>{num(x.overWriteRate)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
