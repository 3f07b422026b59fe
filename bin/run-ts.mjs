#!/usr/bin/env node
// Runs one TypeScript file of this repository through tsx: `node bin/run-ts.mjs FILE.ts [args…]`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const file = process.argv[2];
if (!file) {
  console.error('usage: run-ts.mjs FILE.ts [args…]');
  process.exit(2);
}
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(file)).href);
