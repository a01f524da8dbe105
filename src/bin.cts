#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The `authsvc` command (package.json "bin"): sizes the thread pool (threadpool.cts), then runs
 * main.js. 4 MB V8 semi-spaces, as the workers get (cluster/worker-runtime.ts): V8 otherwise grows the
 * young generation to 32 MB while loading the app and keeps it.
 */
import sizeThreadPool = require('./threadpool.cjs');

sizeThreadPool();
void import('./main.js');
