/**
 * A copy of a shipped policy for a data folder (autosetup, the first `npm start`). The shipped files
 * point their `$schema` at `../policy-schema/policy.schema.json`, which no copy can reach; the copy
 * points at `./policy.schema.json` instead and the schema is written beside it, so editors complete
 * and check the policy in force. Only the `$schema` value changes: the rest keeps its bytes.
 */
import { readFileSync } from 'node:fs';
import { applyEdits, modify } from 'jsonc-parser';
import { POLICY_SCHEMA_PATH } from './authoring/schema.js';

/** The name of the schema written beside a copy. */
export const COPY_SCHEMA_FILE = 'policy.schema.json';

export interface PolicyCopy {
  readonly policy: string;
  readonly schema: Buffer;
}

export function policyCopy(sourcePath: string): PolicyCopy {
  const text = readFileSync(sourcePath, 'utf8');
  const edits = modify(text, ['$schema'], `./${COPY_SCHEMA_FILE}`, {
    formattingOptions: { insertSpaces: true, tabSize: 2 },
  });
  return { policy: applyEdits(text, edits), schema: readFileSync(POLICY_SCHEMA_PATH) };
}
