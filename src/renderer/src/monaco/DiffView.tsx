// Monaco is a few megabytes: it loads on the first diff or editor, not with the app, so the lists
// render without waiting for it.
import { lazy, Suspense, type ComponentProps } from 'react';

const DiffViewImpl = lazy(() => import('./DiffViewImpl'));
const FileEditorImpl = lazy(() => import('./FileEditorImpl'));

const fallback = (height: number | string | undefined) => (
  <div className="monaco-frame muted pad" style={{ height: height ?? 420 }}>
    Loading editor…
  </div>
);

export function DiffView(props: ComponentProps<typeof DiffViewImpl>) {
  return (
    <Suspense fallback={fallback(props.height)}>
      <DiffViewImpl {...props} />
    </Suspense>
  );
}

export function FileEditor(props: ComponentProps<typeof FileEditorImpl>) {
  return (
    <Suspense fallback={fallback(props.height)}>
      <FileEditorImpl {...props} />
    </Suspense>
  );
}
