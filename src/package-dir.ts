import { fileURLToPath } from 'node:url';

/**
 * The package's own directory: one level above both src/ and dist/. The one module that knows where
 * the package sits, so that any part may find its shipped files without reaching into another part.
 */
export const PKG_DIR = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
