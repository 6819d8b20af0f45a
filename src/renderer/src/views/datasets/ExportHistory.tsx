import type { DragEvent } from 'react';
import type { ExportFileDto, ExportRow } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { formatBytes, formatCount, formatTime } from '../../lib/format';
import { useAction, useAsync } from '../../lib/useAsync';

export function ExportHistory() {
  const api = useApi();
  const exports = useAsync(() => api.call('dataset.exports', { limit: 50 }), []);
  const drag = useAction((exportId: string, fileName: string) => api.call('exports.startDrag', { exportId, fileName }));
  return (
    <div className="card stack" data-testid="export-history">
      <h2>Past exports</h2>
      <ErrorMessage action="Loading past exports" error={exports.error} onRetry={exports.reload} />
      <ErrorMessage action="Dragging the export file" error={drag.error} />
      {exports.data && exports.data.length === 0 && <span className="muted">No exports yet.</span>}
      {exports.data && exports.data.length > 0 && (
        <table className="grid">
          <thead>
            <tr>
              <th>When</th>
              <th>Name</th>
              <th>Format</th>
              <th>Samples</th>
              <th>PII</th>
              <th>Files (drag out or download) and SHA-256</th>
            </tr>
          </thead>
          <tbody>
            {exports.data.map((e) => (
              <tr key={e.id} data-testid="export-row">
                <td className="muted">{formatTime(e.exportedAt)}</td>
                <td title={e.path}>{e.name}</td>
                <td>{e.format}</td>
                <td>
                  {formatCount(e.totalSamples)} ({formatCount(e.trainSamples)}/{formatCount(e.validationSamples)})
                </td>
                <td>{e.includePii ? <span className="chip chip-needs-review">included</span> : <span className="chip">redacted</span>}</td>
                <td>
                  {e.files.map((f) => (
                    <ExportFile key={f.name} row={e} file={f} onDrag={(n) => void drag.run(e.id, n)} />
                  ))}
                  {e.files.length === 0 && e.checksum && <span className="mono small">{e.checksum}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function ExportFile({ row, file, onDrag }: { row: ExportRow; file: ExportFileDto; onDrag: (name: string) => void }) {
  const api = useApi();
  const url = api.downloadUrl(row.id, file.name);
  const onDragStart = (ev: DragEvent) => {
    // Electron drags the real file (webContents.startDrag in main); the DOM drag is replaced by it.
    if (!url) {
      ev.preventDefault();
      onDrag(file.name);
    }
  };
  return (
    <div className="row-flex small" style={{ gap: 6 }}>
      {url ? (
        <a
          href={url}
          download={file.downloadName ?? file.name}
          className="drag-file"
          data-testid="export-download"
          title={file.downloadName ? `Downloads as ${file.downloadName}` : undefined}
        >
          {file.name}
        </a>
      ) : (
        <span className="drag-file" draggable onDragStart={onDragStart} title="Drag to the desktop or a folder">
          ⇲ {file.name}
        </span>
      )}
      <span className="muted">{formatBytes(file.bytes)}</span>
      <span className="mono muted" title={file.sha256}>
        {file.sha256.slice(0, 16)}…
      </span>
    </div>
  );
}
