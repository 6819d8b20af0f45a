export function Chip({ value, kind }: { value: string; kind?: string }) {
  return (
    <span className={`chip chip-${(kind ?? value).toLowerCase().replace(/[^a-z0-9]+/g, '-')}`} data-value={value}>
      {value.replace(/_/g, ' ')}
    </span>
  );
}

export function KeyCap({ k }: { k: string }) {
  return <kbd className="keycap">{k}</kbd>;
}

export function LineCounts({ changes }: { changes: { added: number; removed: number; modified: number } | null }) {
  if (!changes) return <span className="muted">—</span>;
  return (
    <span className="small nowrap" title={`${changes.added} added, ${changes.removed} removed, ${changes.modified} modified`}>
      {changes.added > 0 && <span style={{ color: 'var(--ok)' }}>+{changes.added} </span>}
      {changes.removed > 0 && <span style={{ color: 'var(--bad)' }}>−{changes.removed} </span>}
      {changes.modified > 0 && <span style={{ color: 'var(--warn)' }}>~{changes.modified}</span>}
      {changes.added + changes.removed + changes.modified === 0 && <span className="muted">0</span>}
    </span>
  );
}
