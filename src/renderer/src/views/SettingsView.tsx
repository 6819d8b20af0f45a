// Workspace settings that used to exist only in the CLI: live capture (pluginRoot), retention days and
// the conversation archive schedule. Every value is checked by main with the same zod schemas the CLI
// uses (settings.validate while typing, settings.set when saving): no rule is repeated here.
import { useEffect, useState, type ReactNode } from 'react';
import { ErrorMessage } from '../components/ErrorMessage';
import { PickButton } from '../components/PickButton';
import { useApi } from '../lib/api';
import { useApiQuery } from '../lib/queries';
import { useAction, useAsync, useDebounced } from '../lib/useAsync';
import { ReviewSettingsPanel } from './review/ReviewSettingsPanel';

interface SettingsDraft {
  pluginRoot: string;
  retentionDays: string;
  archiveEnabled: boolean;
  archiveSchedule: string;
  archiveKeepDays: string;
}

type Values = Record<string, unknown>;
const get = (v: Values | undefined, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Values)[k] : undefined), v);

function draftOf(v: Values | undefined): SettingsDraft {
  const str = (x: unknown) => (x === undefined || x === null ? '' : String(x));
  return {
    pluginRoot: str(get(v, 'pluginRoot')),
    retentionDays: str(get(v, 'storage.retentionDays')),
    archiveEnabled: get(v, 'storage.jsonlExport.enabled') === true,
    archiveSchedule: str(get(v, 'storage.jsonlExport.schedule')),
    archiveKeepDays: str(get(v, 'storage.jsonlExport.retentionDays')),
  };
}

/** A number field as typed: the schema decides what is valid ("0.5" stays 0.5 and is refused there). */
const num = (s: string): number | string | null => (s.trim() === '' ? null : Number.isFinite(Number(s)) ? Number(s) : s);

/** The settings patch for a draft; null removes an optional value (pluginRoot, retentionDays, schedule). */
function patchOf(d: SettingsDraft): Values {
  return {
    pluginRoot: d.pluginRoot.trim() === '' ? null : d.pluginRoot.trim(),
    storage: {
      retentionDays: num(d.retentionDays),
      jsonlExport: {
        enabled: d.archiveEnabled,
        schedule: d.archiveSchedule.trim() === '' ? null : d.archiveSchedule.trim(),
        retentionDays: num(d.archiveKeepDays) ?? undefined,
      },
    },
  };
}

/** The stored values with the patch applied, as settings.validate takes them (null = absent). */
function merged(values: Values, patch: Values): Values {
  const out: Values = { ...values };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = merged((values[k] as Values) ?? {}, v as Values);
    else if (v !== undefined) out[k] = v;
  }
  return out;
}

const FIELDS: Record<keyof SettingsDraft, string> = {
  pluginRoot: 'pluginRoot',
  retentionDays: 'storage.retentionDays',
  archiveEnabled: 'storage.jsonlExport.enabled',
  archiveSchedule: 'storage.jsonlExport.schedule',
  archiveKeepDays: 'storage.jsonlExport.retentionDays',
};

export function SettingsView() {
  const api = useApi();
  const settings = useApiQuery('settings.get', {});
  const [draft, setDraft] = useState<SettingsDraft | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data && draft === null) setDraft(draftOf(settings.data.values));
  }, [settings.data, draft]);
  const settled = useDebounced(draft, 300);
  const check = useAsync(
    () => api.call('settings.validate', { settings: merged(settings.data!.values, patchOf(settled!)) }),
    [JSON.stringify(settled)],
    { skip: !settled || !settings.data, live: false },
  );
  const save = useAction(async () => {
    const r = await api.call('settings.set', { patch: patchOf(draft!) });
    setDraft(draftOf(r.values));
    setSaved(true);
    return r;
  });
  const problems = check.data?.problems ?? [];
  const problemFor = (field: keyof SettingsDraft) =>
    problems.filter((p) => p.startsWith(`${FIELDS[field]}:`) || p.startsWith(`${FIELDS[field]} `));
  const set = (patch: Partial<SettingsDraft>) => {
    setSaved(false);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };
  const dirty = draft !== null && settings.data !== undefined && JSON.stringify(draft) !== JSON.stringify(draftOf(settings.data.values));
  return (
    <div className="view" data-testid="view-settings">
      <div className="view-header">
        <h1>Settings</h1>
        {settings.data && <span className="muted small mono">{settings.data.file}</span>}
      </div>
      <div className="pane no-border stack" style={{ flex: 1, maxWidth: 820 }}>
        <ErrorMessage action="Loading the settings" error={settings.error} onRetry={() => void settings.refetch()} />
        {settings.data && settings.data.problems.length > 0 && (
          <div className="warning" data-testid="settings-file-problems">
            The stored file has values that are ignored (defaults apply): {settings.data.problems.join('; ')}
          </div>
        )}
        {draft && (
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              void save.run();
            }}
          >
            <section className="card stack">
              <h2>Live capture</h2>
              <Field
                label="Plugin root folder"
                hint="The plugin's folder with logs/reflection-YYYY-MM-DD.log. Empty: live capture is off."
                problems={problemFor('pluginRoot')}
              >
                <div className="row-flex">
                  <input
                    value={draft.pluginRoot}
                    onChange={(e) => set({ pluginRoot: e.target.value })}
                    aria-label="Plugin root folder"
                    placeholder="not set: live capture off"
                  />
                  <PickButton purpose="importFolder" onPicked={(p) => set({ pluginRoot: p })} />
                </div>
              </Field>
            </section>
            <section className="card stack">
              <h2>Retention</h2>
              <Field
                label="Delete recorded data older than (days)"
                hint="Whole days. Empty: keep everything. A curator's judgements are never pruned."
                problems={problemFor('retentionDays')}
              >
                <input
                  value={draft.retentionDays}
                  onChange={(e) => set({ retentionDays: e.target.value })}
                  aria-label="Retention days"
                  inputMode="numeric"
                  size={8}
                  placeholder="keep all"
                />
              </Field>
            </section>
            <section className="card stack">
              <h2>Conversation archive schedule</h2>
              <label className="inline">
                <input
                  type="checkbox"
                  checked={draft.archiveEnabled}
                  onChange={(e) => set({ archiveEnabled: e.target.checked })}
                  aria-label="Archive on a schedule"
                />{' '}
                Write JSONL conversation archives on a schedule
              </label>
              <Field
                label="Schedule (cron, UTC)"
                hint="For example 0 3 * * * (every day at 03:00 UTC)."
                problems={problemFor('archiveSchedule')}
              >
                <input
                  value={draft.archiveSchedule}
                  onChange={(e) => set({ archiveSchedule: e.target.value })}
                  aria-label="Archive schedule"
                  className="mono"
                  placeholder="0 3 * * *"
                />
              </Field>
              <Field label="Keep archives for (days)" problems={problemFor('archiveKeepDays')}>
                <input
                  value={draft.archiveKeepDays}
                  onChange={(e) => set({ archiveKeepDays: e.target.value })}
                  aria-label="Archive retention days"
                  inputMode="numeric"
                  size={8}
                />
              </Field>
            </section>
            <div className="row-flex">
              <button type="submit" className="primary" disabled={!dirty || save.pending || problems.length > 0 || check.loading}>
                {save.pending ? 'Saving…' : 'Save settings'}
              </button>
              <button type="button" disabled={!dirty} onClick={() => settings.data && setDraft(draftOf(settings.data.values))}>
                Discard changes
              </button>
              {problems.length > 0 && (
                <span className="field-error" data-testid="settings-invalid">
                  Fix {problems.length} value{problems.length > 1 ? 's' : ''} before saving.
                </span>
              )}
            </div>
            <ErrorMessage action="Saving the settings" error={save.error} />
            {saved && !dirty && (
              <div className="notice" data-testid="settings-saved">
                Saved to workbench.json. Live capture and the archive schedule use the new values the next time this workspace opens.
              </div>
            )}
          </form>
        )}
        <div className="card">
          <ReviewSettingsPanel />
        </div>
      </div>
    </div>
  );
}

function Field({ label, hint, problems, children }: { label: string; hint?: string; problems: string[]; children: ReactNode }) {
  return (
    <label className="stack" style={{ gap: 2 }}>
      <span>{label}</span>
      {children}
      {hint && <span className="small muted">{hint}</span>}
      {problems.map((p) => (
        <span key={p} className="field-error" role="alert">
          {p}
        </span>
      ))}
    </label>
  );
}
