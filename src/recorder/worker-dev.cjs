// Starts the writer thread from TypeScript source (tests, the tsx CLI). The published package
// starts dist/recorder/worker.cjs instead.
require('tsx/cjs/api').register();
require('./worker.ts');
