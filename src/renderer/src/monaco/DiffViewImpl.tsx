import { DiffEditor } from '@monaco-editor/react';
import { monacoTheme, setupMonaco } from './setup';

setupMonaco();

/** Before/after of a memory file, read-only, side by side (inline when the pane is narrow). */
export default function DiffViewImpl({ before, after, height = 420, label }: { before: string | null; after: string | null; height?: number | string; label?: string }) {
  return (
    <div className="monaco-frame" style={{ height }} aria-label={label ?? 'diff'} data-testid="diff-view">
      <DiffEditor
        original={before ?? ''}
        modified={after ?? ''}
        language="markdown"
        theme={monacoTheme()}
        loading={<div className="muted pad">Loading diff…</div>}
        options={{
          readOnly: true,
          originalEditable: false,
          renderSideBySide: true,
          useInlineViewWhenSpaceIsLimited: true,
          minimap: { enabled: false },
          wordWrap: 'on',
          diffWordWrap: 'on',
          scrollBeyondLastLine: false,
          automaticLayout: true,
          renderOverviewRuler: false,
          fontSize: 13,
        }}
      />
    </div>
  );
}
