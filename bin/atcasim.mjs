#!/usr/bin/env node
// Entry point of the `atcasim` command: loads the TypeScript sources through tsx (a runtime
// dependency), so `npx atcasim …` works right after `npm ci` without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../chassis/main.ts');
process.exitCode = await main(process.argv);
