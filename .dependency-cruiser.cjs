// @ts-check
/**
 * The parts of src/ and what each may import: written down once, enforced by `npm run lint`.
 *
 * Dependencies point one way, from the entry points down to the wire protocol:
 *
 *   entry (bin, start) → cluster, admin → app (composition root) → setup, http, docs
 *     → actions → accounts (with passwords) → services (store, policy engine, admission, mail, metrics)
 *     → log → domain → protocol
 *
 * config decodes options for the services (it may read their option types and parse database URLs) and
 * is read only by the composition root and above. The policy folder is split: `policy/engine/` decides
 * at run time, `policy/authoring/` is the tooling (lint, schema, diff, fixtures; its CLIs are `src/policy-cli/`), and the files
 * directly in `policy/` are the seam (load, reload) that uses both. The two entry files import
 * cluster/launch.ts first (it sizes libuv's thread pool, so it imports nothing of src/), and run
 * cluster/serve.ts, the command as a function.
 *
 * Every import counts: static, type-only, re-export (`export … from`) and dynamic `import()`.
 * A part not listed here may import nothing of src/ but `protocol/` and `domain/`.
 */

/** The service layer and what lies below it: what handlers use, and what config decodes options for. */
const SERVICES = ['protocol', 'domain', 'log', 'metrics', 'store', 'admission', 'mail', 'policy/engine'];

/** Everything the composition root may wire: every part but the cluster and the entry points. */
const BELOW_APP = [...SERVICES, 'policy', 'accounts', 'actions', 'config', 'http', 'setup', 'package-dir'];

/** @type {Record<string, string[]>} part → the parts it may import (besides itself). */
const ALLOWED = {
  protocol: [],
  client: ['protocol'],
  domain: ['protocol'],
  'package-dir': [],
  log: ['protocol', 'domain'],
  metrics: ['protocol', 'domain', 'log'],
  store: ['protocol', 'domain', 'log'],
  admission: ['protocol', 'domain', 'log'],
  mail: ['protocol', 'domain', 'log'],
  'policy/engine': ['protocol', 'domain'],
  'policy/authoring': ['protocol', 'domain', 'policy/engine', 'package-dir'],
  // The policy CLIs (npm run policy:lint|diff|test) are commands of their own, above config: they read INIT_CWD
  // (where `npm run` was called) through config/environment, the one module that reads process.env.
  'policy-cli': ['protocol', 'domain', 'policy/engine', 'policy/authoring', 'package-dir', 'config/environment'],
  // The seam records policy.reloaded / policy.reload-refused through the audit port (log/audit.ts).
  policy: ['protocol', 'domain', 'log', 'policy/engine', 'policy/authoring', 'package-dir'],
  // The security mail (accounts/notify.ts) composes its mails with the mail service's templates and queue.
  accounts: ['protocol', 'domain', 'log', 'store', 'mail', 'policy/engine'],
  actions: [...SERVICES, 'accounts'],
  // config decodes the services' options (it may read their types), never the layers above them.
  config: [...SERVICES, 'accounts', 'package-dir'],
  http: ['protocol', 'domain', 'log', 'metrics', 'admission', 'actions'],
  setup: ['protocol', 'domain', 'log', 'config', 'accounts', 'store', 'policy', 'policy/engine', 'package-dir'],
  // docs/events.md lists the audit-event catalogue (src/log/audit-catalogue.ts); docs/actions.md
  // the HTTP status of each failure, which the transport decides (src/http/envelope.ts).
  docs: ['protocol', 'domain', 'log', 'config', 'actions', 'http', 'package-dir'],
  // The composition root wires every part below it; the cluster runs the composition root.
  app: BELOW_APP,
  // `authsvc --help` (cluster/serve.ts) lists the admin commands too.
  cluster: [...BELOW_APP, 'app', 'admin/help'],
  // The admin command line (`authsvc user …`) sits beside the cluster, above the composition root: it
  // runs the actions through the dispatcher the app wires (never copies of their rules), and reads
  // policy/authoring for `policy check`'s positioned problems. Only the entry points import it (and
  // cluster/serve.ts its help summary).
  admin: [...BELOW_APP, 'app', 'policy/authoring'],
};
/** The two entry files: the `authsvc` bin and `npm start`. */
const ENTRY = ['bin', 'start'];

/**
 * Where each part lives under src/: the top level is grouped by layer (entry files, cluster and admin,
 * app.ts, http and setup, config, actions, accounts, services, log, domain, protocol).
 * A part not listed lives at src/<part>.
 */
const HOME = {
  store: 'services/store',
  policy: 'services/policy',
  'policy/engine': 'services/policy/engine',
  'policy/authoring': 'services/policy/authoring',
  admission: 'services/admission',
  mail: 'services/mail',
  metrics: 'services/metrics',
  config: 'config',
  'config/environment': 'config/environment',
  app: 'app',
};
/** @param {string} part */
const home = (part) => HOME[/** @type {keyof typeof HOME} */ (part)] ?? part;

/** The path pattern of a part: a folder, a root file, or (for `policy`) the seam files only. */
function pathOf(part) {
  if (part === 'policy') return '^src/services/policy/[^/]+$';
  if (part === 'config/environment') return '^src/config/environment\\.ts$';
  if (part === 'admin/help') return '^src/admin/help\\.ts$';
  if (part === 'app' || part === 'package-dir' || ENTRY.includes(part)) return `^src/${home(part)}\\.ts$`;
  return `^src/${home(part)}/`;
}

const parts = Object.keys(ALLOWED);
/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const layerRules = parts.map((part) => ({
  name: `${part.replace('/', '-')}-imports`,
  comment: `src/${part} may import only: ${ALLOWED[part].join(', ') || 'nothing of src/'} (see .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: pathOf(part) },
  to: {
    path: '^src/',
    pathNot: [pathOf(part), ...ALLOWED[part].map(pathOf)],
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'launch-imports-nothing',
      comment: 'cluster/launch.ts runs first in every process, before any module may start the thread pool',
      severity: 'error',
      from: { path: '^src/cluster/launch\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'nothing-imports-entry',
      comment: 'bin and start are the entry points: nothing imports them',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `^src/(${ENTRY.join('|')})\\.ts$` },
    },
    {
      name: 'unknown-part',
      comment: 'every file of src/ belongs to a part written down in .dependency-cruiser.cjs',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: [...parts.map(pathOf), ...ENTRY.map(pathOf), '\\.d\\.ts$', '\\.json$'],
      },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no cycle between modules',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-test',
      comment: 'src/ never imports tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    // Type-only imports are dependencies too: they couple the parts as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
