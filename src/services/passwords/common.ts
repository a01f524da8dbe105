/**
 * The most common passwords: the first 10,000 of the ranked list that zxcvbn-ts maintains (built from
 * the same 10-million-password corpus as SecLists' top-10000 list, which the reference bundles).
 * Loaded on first use: the package's dictionaries take ~2.3 MB of heap that a process which never sets
 * a password (one serving logins and sessions) does not need.
 */
const TOP = 10_000;
let common: Promise<ReadonlySet<string>> | null = null;

export async function isCommonPassword(lowercased: string): Promise<boolean> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].slice(0, TOP)),
    (error: unknown) => {
      common = null; // the next check tries again
      throw error;
    },
  );
  return (await common).has(lowercased);
}
