// Monaco offline: @monaco-editor/react would fetch Monaco from a CDN, which never answers here and is
// not what a desktop app should do. We hand it the bundled editor core (no 20 MB of language workers)
// plus the only language we show: Markdown. JSON would need its own language worker; Markdown does not.
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/languages/definitions/markdown/register';
// The codicon font (diff gutter arrows, fold markers); the editor core alone renders empty boxes.
import 'monaco-editor/features/codicon/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

let configured = false;

/** Idempotent: called by every Monaco component before its first render. */
export function setupMonaco(): void {
  if (configured) return;
  configured = true;
  // Without the worker the diff editor never computes a diff: it only shows both texts.
  self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
  loader.config({ monaco });
}

export function monacoTheme(): string {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'vs-dark' : 'vs';
}
