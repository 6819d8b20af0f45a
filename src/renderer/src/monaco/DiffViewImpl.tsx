import { DiffEditor, type DiffOnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
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

/** Side by side, the original editor is as wide as the modified one; inline, it shrinks to a line-number gutter. */
export function drawsSideBySide(frame: HTMLElement | null): boolean | null {
  const original = frame?.querySelector('.editor.original');
  const modified = frame?.querySelector('.editor.modified');
  if (!original || !modified) return null;
  return original.getBoundingClientRect().width >= modified.getBoundingClientRect().width * 0.5;
}

/**
 * Before/after of a memory file, read-only, side by side (inline when the pane is narrow). The caption
 * names the sides the way Monaco actually draws them: left/right side by side, red/green lines inline.
 */
export default function DiffViewImpl({
  before,
  after,
  height = 420,
  label,
  beforeLabel,
  afterLabel,
}: {
  before: string | null;
  after: string | null;
  height?: number | string;
  label?: string;
  beforeLabel?: string;
  afterLabel?: string;
}) {
  const frameRef = useRef<HTMLDivElement>(null);
  const [sideBySide, setSideBySide] = useState<boolean | null>(null);
  useEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    const check = () => setSideBySide(drawsSideBySide(frame));
    const observer = new ResizeObserver(check);
    observer.observe(frame);
    // Monaco builds its DOM after mount and switches layout on resize; both end in a layout pass.
    const mo = new MutationObserver(check);
    mo.observe(frame, { childList: true, subtree: false });
    check();
    return () => {
      observer.disconnect();
      mo.disconnect();
    };
  }, []);
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
  const b = beforeLabel ?? 'before';
  const a = afterLabel ?? 'after';
  return (
    <div className="stack" style={{ gap: 4 }}>
      {sideBySide !== null && (
        <div className="muted small" data-testid="diff-caption" data-layout={sideBySide ? 'side-by-side' : 'inline'}>
          {sideBySide ? `${b} on the left, ${a} on the right` : `${b} → ${a}, in one column: removed lines in red, added lines in green`}
        </div>
      )}
      <div
        className="monaco-frame"
        ref={frameRef}
        style={{ height }}
        aria-label={label ?? 'diff'}
        data-testid="diff-view"
        data-layout={sideBySide === null ? undefined : sideBySide ? 'side-by-side' : 'inline'}
      >
        <DiffEditor
          original={before ?? ''}
          modified={after ?? ''}
          language="markdown"
          theme={monacoTheme()}
          onMount={(editor, monaco) => {
            editorRef.current = editor;
            revealFirstChange(editor, monaco);
            editor.onDidUpdateDiff(() => setSideBySide(drawsSideBySide(frameRef.current)));
            editor.getModifiedEditor().onDidLayoutChange(() => setSideBySide(drawsSideBySide(frameRef.current)));
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
    </div>
  );
}
