/**
 * `--envfile`: a file of `NAME=value` lines for testing and development (and the `.env` that autosetup
 * writes). Values are read by `node:util.parseEnv`, so the file means what it means to Node's own
 * `--env-file` and to dotenv: `#` comments (also after a value), `export ` before a name, single,
 * double or back quotes, `\n` escapes inside double quotes, multi-line quoted values. Names are
 * upper-cased, as the reference read them case-insensitively.
 *
 * Node 20's parseEnv glues a whitespace-only line, and the indentation of a line, onto the next name
 * (`'\nA'`), and skips a line it cannot read without a word. So we walk the lines first: we blank the
 * lines that hold no assignment, unindent the ones that do, and name every unreadable line.
 */
import { parseEnv } from 'node:util';

export interface EnvFile {
  readonly values: Readonly<Record<string, string>>;
  readonly problems: readonly string[];
}

const ASSIGNMENT = /^\s*(?:export\s+)?([\w.-]+)\s*=(.*)$/;
const QUOTES = new Set(['"', "'", '`']);

/** The quote a value opens on its line and closes on a later one (a multi-line value), or null. */
function multiLineQuote(value: string, rest: string): string | null {
  const trimmed = value.trimStart();
  const quote = trimmed[0];
  if (quote === undefined || !QUOTES.has(quote) || trimmed.indexOf(quote, 1) !== -1) return null;
  return rest.includes(quote) ? quote : null; // never closed: parseEnv reads the line as it is
}

interface Scan {
  readonly text: string;
  /** Every assigned name, in file order. */
  readonly names: readonly string[];
  readonly problems: readonly string[];
}

function scan(text: string, label: string): Scan {
  const lines = text.split(/\r?\n/);
  const names: string[] = [];
  const problems: string[] = [];
  let open: string | null = null;
  const cleaned = lines.map((line, index) => {
    if (open !== null) {
      if (line.includes(open)) open = null;
      return line;
    }
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return '';
    const match = ASSIGNMENT.exec(line);
    if (match === null) {
      problems.push(`${label}:${index + 1}: not a NAME=value line`);
      return '';
    }
    names.push(match[1] ?? '');
    open = multiLineQuote(match[2] ?? '', lines.slice(index + 1).join('\n'));
    return line.trimStart();
  });
  return { text: cleaned.join('\n'), names, problems };
}

export function parseEnvFile(text: string, label: string): EnvFile {
  const scanned = scan(text, label);
  const parsed = parseEnv(scanned.text);
  const values: Record<string, string> = {};
  // In file order, so that the last of `port=` and `PORT=` wins, as the last of two `PORT=` does.
  for (const name of scanned.names) {
    const value = parsed[name];
    if (value !== undefined) values[name.toUpperCase()] = value;
  }
  return { values, problems: scanned.problems };
}
