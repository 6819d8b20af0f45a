import { DiffEditor, type DiffOnMount } from '@monaco-editor/react';
import { useEffect, useRef } from 'react';
import { monacoTheme, setupMonaco } from './setup';

setupMonaco();

// A curator opens a diff to see the change: scroll to the first one once the diff is computed.
const revealFirstChange: DiffOnMount = (editor) => {
  let revealedFor: string | null = null;
  editor.onDidUpdateDiff(() => {
    const modified = editor.getModifiedEditor();
    const key = modified.getModel()?.getValue() ?? '';
    if (revealedFor === key) return;
    revealedFor = key;
    const first = editor.getLineChanges()?.[0];
    if (first) modified.revealLineInCenter(Math.max(1, first.modifiedStartLineNumber || first.originalStartLineNumber));
  });
};

/** Before/after of a memory file, read-only, side by side (inline when the pane is narrow). */
export default function DiffViewImpl({ before, after, height = 420, label }: { before: string | null; after: string | null; height?: number | string; label?: string }) {
  // The wrapper disposes the models before the widget lets go of them ("TextModel got disposed before
  // DiffEditorWidget model got reset"): keep them, detach them ourselves, then dispose.
  const editorRef = useRef<Parameters<DiffOnMount>[0] | null>(null);
  useEffect(
    () => () => {
      const editor = editorRef.current;
      const model = editor?.getModel();
      try {
        editor?.setModel(null);
      } catch {
        /* already disposed */
      }
      model?.original.dispose();
      model?.modified.dispose();
    },
    [],
  );
  return (
    <div className="monaco-frame" style={{ height }} aria-label={label ?? 'diff'} data-testid="diff-view">
      <DiffEditor
        original={before ?? ''}
        modified={after ?? ''}
        language="markdown"
        theme={monacoTheme()}
        onMount={(editor, monaco) => {
          editorRef.current = editor;
          revealFirstChange(editor, monaco);
        }}
        keepCurrentOriginalModel
        keepCurrentModifiedModel
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
