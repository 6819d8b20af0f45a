import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig(({ mode }) => ({
  main: {
    plugins: [externalizeDepsPlugin()],
    // The built app trusts the compiler: the registry's contract checks (src/api/contractChecks.ts) run in
    // development and tests only. `electron-vite dev` keeps them.
    define: mode === 'production' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
    build: {
      outDir: 'out/main',
      // jobWorker: long jobs run in a worker thread (src/api/jobs/runner.ts loads it beside index.js)
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/electron/main.ts'), jobWorker: resolve(__dirname, 'src/api/jobs/worker.ts') },
      },
    },
  },
  preload: {
    // Sandboxed preloads cannot require() node_modules: bundle everything (zod, the contract) into one file.
    plugins: [externalizeDepsPlugin({ exclude: ['zod'] })],
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { index: resolve(__dirname, 'src/preload/index.ts') } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
}));
