/** `authsvc --help`: every item of the configuration-variables file, with its option, variables and default. */
import type { ConfVars } from './confvars.js';
import { envNames } from './confvars.js';
import { PRECEDENCE } from './precedence.js';

/** The words of `text` in lines of at most 100 characters. */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + word.length + 1 > 100) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}

export function helpText(confvars: ConfVars): string {
  const lines = [
    'Usage: authsvc [--option=value ...]',
    '       authsvc --autosetup [--basedir=DIR] [--force]',
    '       authsvc --version | --help',
    '',
    'In a clone of the repository, run it as `npx authsvc` (or `npm start` for a zero-configuration server).',
    '',
    'Examples:',
    '  npx authsvc --autosetup --basedir=/srv/authsvc        ask four questions, write /srv/authsvc/.env',
    '  npx authsvc --envfile=/srv/authsvc/.env --port=13431  start from what autosetup wrote',
    '  AUTHSVC_AUTHDB=postgresql://authsvc@db:5432/authsvc AUTHSVC_SECRET=/run/secrets/key \\',
    '    AUTHSVC_PIISALT=/run/secrets/salt npx authsvc      configured by the environment only',
    '  npm start -- --workers=2                               the zero-configuration server, with an option',
    '',
    ...wrap(PRECEDENCE),
    'Items marked "file" may also name a file holding the value.',
    '',
    'Command-line only:',
    '  --help, -h          print this and exit',
    '  --version, -v       print the version and exit',
    '  --autosetup         ask for the database, policy and admin account, write the secret, salt and .env',
    '                      into basedir, and exit (--force to run it over an existing setup)',
    '  --envfile=PATH      read NAME=value lines from this file (the real environment still wins)',
    '  --confvars=PATH     add items to, or override items of, the shipped configuration-variables file',
    '                      (an item the file lacks keeps its shipped definition)',
    '',
    'Items:',
  ];
  for (const [name, item] of Object.entries(confvars.items)) {
    const option = item.cmdline === null ? '(no option)' : `--${item.cmdline}`;
    const variables = envNames(item).join(', ') || '(no variable)';
    const fallback =
      item.default === null ? 'required' : item.default === '' ? 'none' : `default ${String(item.default)}`;
    const file =
      item.readable_from_file === false ? '' : item.readable_from_file === 'string' ? ', file' : ', fetched over HTTP';
    lines.push(`  ${option}  ${variables}  [${item.type}, ${fallback}${file}]`);
    lines.push(`      ${name}: ${item.help}`);
  }
  return `${lines.join('\n')}\n`;
}
