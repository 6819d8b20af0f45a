// Moved to src/main/ipc/pathPolicy.ts (transport-neutral, used by the api); this path re-exports it so work in progress
// that still imports it compiles. New code imports the ipc path.
export * from '../ipc/pathPolicy';
