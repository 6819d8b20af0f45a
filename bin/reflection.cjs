#!/usr/bin/env node
// The `reflection` command. Runs the TypeScript CLI through tsx, so the CLI needs no build step.
const path = require('node:path');
const { register } = require('tsx/cjs/api');
register();
require(path.join(__dirname, '..', 'src', 'cli', 'index.ts'));
