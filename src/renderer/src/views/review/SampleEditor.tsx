// The sample editor (issue 12, item 6): one input per field of the sample, checked against the same
// per-type schema main enforces, with the raw JSON as a fallback for adding or removing fields.
// Conversation text is shown in inputs only, never as HTML.
import { useMemo, useState } from 'react';
import type { SampleDetail } from '../../../../shared/contract';
import { GUARDIAN_ACTIONS, sampleContentIssues, type SampleIssue } from '../../../../shared/contract/samples';
import { GATE_DECISIONS, MEMORY_FILES, type SampleType } from '../../../../shared/domain';
import { humanizePath } from './sampleFields';
import './sampleEditor.css';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The choices of an enumerated field, by its path in the content; null for free text. */
function choicesFor(type: SampleType, path: string): readonly string[] | null {
  const key = path.split('.').pop() ?? '';
  if (key === 'role') return ['user', 'agent'];
  if (key === 'targetFile' || key === 'correctedTargetFile') return MEMORY_FILES;
  if (key === 'label') return ['correct', 'incorrect', 'corrected'];
  if (key === 'status') return ['written', 'refused', 'failed', 'skipped'];
  if (key === 'correctDecision' || key === 'incorrectDecision') return GATE_DECISIONS;
  if (key === 'originalDecision') return GUARDIAN_ACTIONS;
  if (key === 'correctedDecision') return ['written', 'refused'];
  if (key === 'userFeedback') return ['confirmed', 'corrected'];
  if (key === 'decision') return type === 'write_guardian_decision' && path === 'decision' ? GUARDIAN_ACTIONS : GATE_DECISIONS;
  return null;
}

function setAt(value: Json, path: (string | number)[], next: Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return next;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, next) : v));
  const obj = (value ?? {}) as Record<string, Json>;
  return { ...obj, [head]: setAt(obj[head as string] ?? null, rest, next) };
}

interface EditorFieldProps {
  type: SampleType;
  path: (string | number)[];
  value: Json;
  issues: Map<string, string>;
  onChange: (path: (string | number)[], next: Json) => void;
}

function Field({ type, path, value, issues, onChange }: EditorFieldProps) {
  const key = path.join('.');
  const label = humanizePath(key);
  const issue = issues.get(key);
  if (key === 'type') return null;
  if (Array.isArray(value)) {
    return (
      <fieldset className="editor-group" data-field={key}>
        <legend>
          {label} ({value.length})
        </legend>
        {value.map((v, i) => (
          <div key={i} className="row-flex editor-item">
            <div className="stack" style={{ flex: 1 }}>
              <Field type={type} path={[...path, i]} value={v} issues={issues} onChange={onChange} />
            </div>
            <button
              type="button"
              className="small"
              onClick={() =>
                onChange(
                  path,
                  value.filter((_, j) => j !== i),
                )
              }
              aria-label={`Remove ${label} #${i + 1}`}
            >
              remove
            </button>
          </div>
        ))}
        {issue && <span className="field-error">{issue}</span>}
      </fieldset>
    );
  }
  if (value && typeof value === 'object') {
    return (
      <fieldset className="editor-group" data-field={key}>
        {key && <legend>{label}</legend>}
        {Object.entries(value).map(([k, v]) => (
          <Field key={k} type={type} path={[...path, k]} value={v} issues={issues} onChange={onChange} />
        ))}
        {issue && <span className="field-error">{issue}</span>}
      </fieldset>
    );
  }
  const choices = choicesFor(type, key);
  let input;
  if (typeof value === 'boolean') {
    input = <input type="checkbox" checked={value} onChange={(e) => onChange(path, e.target.checked)} aria-label={label} />;
  } else if (typeof value === 'number') {
    input = <input type="number" value={value} onChange={(e) => onChange(path, Number(e.target.value))} aria-label={label} />;
  } else if (choices) {
    input = (
      <select value={String(value)} onChange={(e) => onChange(path, e.target.value)} aria-label={label}>
        {!choices.includes(String(value)) && <option value={String(value)}>{String(value)} (not allowed)</option>}
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  } else {
    const text = value === null ? '' : String(value);
    input = (
      <textarea
        rows={Math.min(12, Math.max(1, Math.ceil(text.length / 90), text.split('\n').length))}
        value={text}
        onChange={(e) => onChange(path, e.target.value)}
        aria-label={label}
      />
    );
  }
  return (
    <label className={`editor-field${issue ? ' has-error' : ''}`} data-field={key}>
      <span className="small muted">{label}</span>
      {input}
      {issue && <span className="field-error">{issue}</span>}
    </label>
  );
}

/** Issues by field path; an issue on a missing field shows at its parent. */
function issueMap(issues: SampleIssue[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const i of issues) m.set(i.field, m.has(i.field) ? `${m.get(i.field)}; ${i.message}` : i.message);
  return m;
}

export function SampleEditor({
  sample,
  onCancel,
  onSave,
}: {
  sample: SampleDetail;
  onCancel: () => void;
  onSave: (content: unknown) => Promise<void>;
}) {
  const [value, setValue] = useState<Json>(() => structuredClone(sample.content) as Json);
  const [mode, setMode] = useState<'fields' | 'json'>('fields');
  const [text, setText] = useState('');
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const issues = useMemo(() => sampleContentIssues(sample.sampleType, value), [sample.sampleType, value]);
  const byField = useMemo(() => issueMap(issues), [issues]);
  const toJson = () => {
    setText(JSON.stringify(value, null, 2));
    setMode('json');
  };
  const fromJson = (): Json | undefined => {
    try {
      const parsed = JSON.parse(text) as Json;
      setValue(parsed);
      setJsonError(null);
      return parsed;
    } catch (e) {
      setJsonError(`The sample is not valid JSON: ${(e as Error).message}`);
      return undefined;
    }
  };
  const save = async () => {
    const content = mode === 'json' ? fromJson() : value;
    if (content === undefined || sampleContentIssues(sample.sampleType, content).length) return;
    setSaving(true);
    await onSave(content);
    setSaving(false);
  };
  return (
    <div
      className="overlay"
      role="dialog"
      aria-label="Edit sample"
      data-testid="edit-dialog"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
        // keyboard-first review: Ctrl+Enter saves from any field, as the old JSON editor did
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void save();
      }}
    >
      <div className="dialog stack sample-editor" style={{ width: 860 }}>
        <div className="row-flex">
          <h2 style={{ flex: 1 }}>Edit {sample.sampleType.replace(/_/g, ' ')}</h2>
          <div className="segmented" role="tablist">
            <button
              type="button"
              role="tab"
              aria-selected={mode === 'fields'}
              onClick={() => (mode === 'json' ? fromJson() !== undefined && setMode('fields') : undefined)}
            >
              Fields
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={mode === 'json'}
              onClick={() => mode === 'fields' && toJson()}
              data-testid="editor-raw-json"
            >
              Raw JSON
            </button>
          </div>
        </div>
        <p className="muted small">
          Change the content as it should be trained on. Fields are checked against the sample type as you type; the raw JSON adds or
          removes optional fields. Ctrl+Enter saves, Esc cancels.
        </p>
        {mode === 'fields' ? (
          <div className="editor-fields" data-testid="editor-fields">
            <Field
              type={sample.sampleType}
              path={[]}
              value={value}
              issues={byField}
              onChange={(p, next) => setValue((v) => setAt(v, p, next))}
            />
          </div>
        ) : (
          <textarea
            rows={22}
            className="mono"
            value={text}
            autoFocus
            onChange={(e) => {
              setText(e.target.value);
              setJsonError(null);
            }}
            aria-label="Sample content (JSON)"
          />
        )}
        {jsonError && <span className="field-error">{jsonError}</span>}
        {issues.length > 0 && (
          <ul className="field-error small" data-testid="editor-issues">
            {issues.slice(0, 8).map((i) => (
              <li key={`${i.field}:${i.message}`}>
                <span className="mono">{i.field || 'content'}</span>: {i.message}
              </li>
            ))}
          </ul>
        )}
        <div className="row-flex">
          <button
            type="button"
            className="primary"
            onClick={() => void save()}
            disabled={saving || (mode === 'fields' && issues.length > 0)}
            data-testid="editor-save"
          >
            {saving ? 'Saving…' : 'Save edit'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
