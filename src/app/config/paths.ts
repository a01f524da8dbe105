import { PKG_DIR } from '../../package-dir.js';

/** The configuration-variables file shipped with authsvc. */
export const SHIPPED_CONFVARS = `${PKG_DIR}/src/app/config/confvars.json`;
