import Editor from '@monaco-editor/react';
import { monacoTheme, setupMonaco } from './setup';

setupMonaco();

/** An editable memory file (retry: the corrected content, for the curator to adjust before saving). */
export default function FileEditorImpl({
  value,
  onChange,
  height = 420,
  readOnly = false,
}: {
  value: string;
  onChange?: (v: string) => void;
  height?: number | string;
  readOnly?: boolean;
}) {
  return (
    <div className="monaco-frame" style={{ height }} data-testid="file-editor">
      <Editor
        value={value}
        language="markdown"
        theme={monacoTheme()}
        onChange={(v) => onChange?.(v ?? '')}
        loading={<div className="muted pad">Loading editor…</div>}
        options={{
          readOnly,
          minimap: { enabled: false },
          wordWrap: 'on',
          scrollBeyondLastLine: false,
          automaticLayout: true,
          fontSize: 13,
        }}
      />
    </div>
  );
}
