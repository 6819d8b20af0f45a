// Moved to src/main/services/lifecycle/stateDir.ts so services can use it without importing the shell's folder;
// this path re-exports it so work in progress that still imports it compiles.
export * from '../services/lifecycle/stateDir';
