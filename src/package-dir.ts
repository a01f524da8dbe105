import { fileURLToPath } from 'node:url';

/**
 * The package's own directory: one level above both src/ and dist/. The one module that knows where
 * the package sits, so that any part may find its shipped files without reaching into another part.
 */
export const PKG_DIR = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

/** The configuration-variables file shipped with authsvc (read by the configuration and copied by autosetup). */
export const SHIPPED_CONFVARS = `${PKG_DIR}/src/config/confvars.json`;
