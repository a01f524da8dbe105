/** The help of the admin command line: `authsvc user --help`, and its summary in `authsvc --help`. */
import type { Group } from './args.js';

const EXIT_CODES = [
  'Exit codes: 0 done; 1 refused (user not found, a rule of the action, not confirmed; the reason is printed);',
  '            2 usage or configuration error.',
];

const CONFIG_NOTE = [
  'The configuration is resolved as the server resolves it (environment, --envfile, options, --confvars), so give',
  'the same items the server gets, e.g. --envfile=/srv/authsvc/.env or the AUTHSVC_* variables. Given none, in a',
  'clone where `npm start` has set up .authsvc/, they use that folder as `npm start` does. The commands act as',
  'superuser 1 through the same actions the server runs (each change is audited, on stderr) and start no server.',
];

const USER = [
  'Usage: authsvc user <command> [arguments] [--json] [configuration options]',
  '',
  'Commands:',
  '  list                          every user (--json: one JSON array of user info dicts)',
  '  show ID|EMAIL                 one user',
  '  add EMAIL --name=NAME [--role=ROLE]',
  '                                a verified, active user (role authenticated unless --role); the password is',
  '                                typed at a prompt (no echo) or piped on stdin, never given as an option',
  '  lock ID|EMAIL                 lock the account and end its sessions and keys',
  '  unlock ID|EMAIL               give a locked account its previous role back',
  '  delete ID|EMAIL [--yes]       delete the user (asks for confirmation unless --yes)',
  "  reset-password ID|EMAIL       set a new password (prompt or stdin); ends the user's sessions",
  '  set-role ID|EMAIL ROLE        change the role (a role of the policy in force)',
  "  factors reset ID|EMAIL        remove the user's second factors and recovery codes (a lost device);",
  '                                ends their sessions, keys and login tickets',
  '',
  'Examples:',
  '  npx authsvc user list',
  "  npx authsvc user list --json | jq -r '.[].email'",
  '  npx authsvc user show alice@example.org',
  '  printf \'%s\\n\' "$NEW_PASSWORD" | npx authsvc user add alice@example.org --name="Alice Liddell"',
  '  npx authsvc user set-role alice@example.org staff',
  '  npx authsvc user lock 4',
  '  npx authsvc user delete alice@example.org --yes',
  '  npx authsvc user factors reset alice@example.org',
];

const SESSION = [
  'Usage: authsvc session purge [--user=ID|EMAIL] [--json] [configuration options]',
  '',
  '  purge                 delete expired sessions, API keys and refresh tokens now (the server does it hourly)',
  '  purge --user=ID|EMAIL delete every session of that user (logs them out everywhere)',
  '',
  'Examples:',
  '  npx authsvc session purge',
  '  npx authsvc session purge --user=alice@example.org',
];

const POLICY = [
  'Usage: authsvc policy check [FILE] [--json] [configuration options]',
  '',
  '  check         check the policy in force (the permissions item) with every rule start-up applies',
  '  check FILE    check that file instead (a relative path is read from the current directory)',
  '',
  'Examples:',
  '  npx authsvc policy check',
  '  npx authsvc policy check policy/default.json',
];

export function groupHelp(group: Group): string {
  const body = group === 'user' ? USER : group === 'session' ? SESSION : POLICY;
  return [...body, '', ...CONFIG_NOTE, '', ...EXIT_CODES, ''].join('\n');
}

/** The section `authsvc --help` adds after its items. */
export const ADMIN_SUMMARY = [
  'Admin commands (act on the configured database as superuser 1; start no server):',
  '  authsvc user list|show|add|lock|unlock|delete|reset-password|set-role|factors …  (authsvc user --help)',
  '  authsvc session purge [--user=ID|EMAIL]                                     (authsvc session --help)',
  '  authsvc policy check [FILE]                                                 (authsvc policy --help)',
  'Examples:',
  '  npx authsvc user list --json',
  '  npx authsvc user lock alice@example.org',
  '  npx authsvc user list --envfile=/srv/authsvc/.env     (elsewhere than a clone set up by npm start)',
  '',
].join('\n');
