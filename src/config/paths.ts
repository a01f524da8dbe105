import { fileURLToPath } from 'node:url';

/** The package's own directory (two levels above both src/config and dist/config). */
export const PKG_DIR = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** The configuration-variables file shipped with authsvc. */
export const SHIPPED_CONFVARS = `${PKG_DIR}/src/config/confvars.json`;
