/**
 * `--envfile`: a file of `NAME=value` lines for testing and development (and the `.env` that autosetup
 * writes). `#` starts a comment line; `export ` before a name is allowed; a value may be quoted with
 * single or double quotes. Names are upper-cased, as the reference read them case-insensitively.
 */
export interface EnvFile {
  readonly values: Readonly<Record<string, string>>;
  readonly problems: readonly string[];
}

export function parseEnvFile(text: string, label: string): EnvFile {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (match === null) {
      problems.push(`${label}:${index + 1}: not a NAME=value line`);
      return;
    }
    let value = match[2] ?? '';
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) value = value.slice(1, -1);
    values[(match[1] ?? '').toUpperCase()] = value;
  });
  return { values, problems };
}
