import { readFileSync } from 'node:fs';
import { PKG_DIR } from '../package-dir.js';

export const VERSION: string = (JSON.parse(readFileSync(`${PKG_DIR}/package.json`, 'utf8')) as { version: string })
  .version;
