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
