/** `npm start` (package.json, with the same node flags as bin.cts): sizes the thread pool, then runs start.js. */
import sizeThreadPool = require('./threadpool.cjs');

sizeThreadPool();
void import('./start.js');
