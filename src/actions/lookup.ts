/**
 * user-list, user-lookup-email, user-lookup-match. Lists are ordered by user_id and paged at
 * USER_PAGE_SIZE users or MAX_PAGE_BYTES of user info, whichever comes first (`after_user_id` pages
 * on, `has_more` says whether more follow), so no request reads an unbounded table into memory and no
 * stored data can make a reply too large to seal (docs/design.md#stored-dicts-and-replies-are-bounded).
 * user-lookup-match refuses an unlisted `by` in the schema, before any SQL, and a `match` of the wrong type for its
 * field; extra_info is prefiltered by the database and matched exactly in TypeScript, so the three databases (whose JSON
 * functions differ) answer alike.
 */
import { normaliseFullName } from '../accounts/full-name.js';
import { userInfo } from '../accounts/user-info.js';
import { holdsItems } from '../domain/json-equal.js';
import { UnavailableError } from '../domain/errors.js';
import { fail, invalid, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { MAX_PAGE_BYTES, normaliseEmail, parseDateTime, USER_PAGE_SIZE } from '../protocol/index.js';
import type { ActionInput, ActionOutput, JsonObject, MatchField, Problem } from '../protocol/index.js';
import type { UserRecord } from '../services/store/index.js';
import type { ColumnMatch } from '../services/store/index.js';
import { defineAction } from './define.js';
import type { lookupActions } from '../protocol/actions/lookup.js';
import type { Deps, FamilyHandlers } from './define.js';

const LOOKUP_OK = 'User look up successful.';
const LOOKUP_FAILED = 'User look up failed.';

/** How long a search by extra_info may go on (the SQL statement timeout of PostgreSQL and MariaDB, db.ts). */
const MATCH_BUDGET_MS = 2000;

/** Users read per query while filling a page: a page of big dicts ends long before USER_PAGE_SIZE. */
const PAGE_BATCH = 100;

type Listing = ActionOutput<'user-list'>;
type Batches = AsyncIterable<readonly UserRecord[]>;

/** Users after `after` in batches ordered by user_id, until the table ends. */
async function* batchesAfter(fetch: (after: number, limit: number) => Promise<UserRecord[]>, after: number): Batches {
  for (let from = after; ;) {
    const rows = await fetch(from, PAGE_BATCH);
    yield rows;
    const last = rows.at(-1);
    if (last === undefined || rows.length < PAGE_BATCH) return;
    from = last.userId;
  }
}

/** One page: up to USER_PAGE_SIZE users, and never more than MAX_PAGE_BYTES (but at least one user). */
async function page(batches: Batches): Promise<Listing> {
  const infos: Listing['user_info'] = [];
  let bytes = 2; // the list's brackets
  for await (const rows of batches) {
    for (const row of rows) {
      if (infos.length === USER_PAGE_SIZE) return { user_info: infos, has_more: true };
      const info = userInfo(row);
      const size = Buffer.byteLength(JSON.stringify(info), 'utf8') + 1; // and its comma
      if (bytes + size > MAX_PAGE_BYTES && infos.length > 0) return { user_info: infos, has_more: true };
      infos.push(info);
      bytes += size;
    }
  }
  return { user_info: infos, has_more: false };
}

const userList = defineAction('user-list', {
  messages: { ok: LOOKUP_OK, failures: { user_not_found: LOOKUP_FAILED } },
  async handle(deps, input) {
    if (input.user_id !== null) {
      // One user: after_user_id pages through "all users" only, so it is ignored here.
      const user = await deps.store.users.byId(input.user_id);
      if (user === null) return fail('user_not_found', { user_info: null, has_more: false });
      return ok({ user_info: [userInfo(user)], has_more: false });
    }
    return ok(await page(batchesAfter((from, limit) => deps.store.users.page(from, limit), input.after_user_id ?? 0)));
  },
});

const userLookupEmail = defineAction('user-lookup-email', {
  messages: { ok: LOOKUP_OK, failures: { user_not_found: LOOKUP_FAILED } },
  async handle(deps, input) {
    const user = await deps.store.users.byEmail(normaliseEmail(input.email));
    return user === null ? fail('user_not_found', { user_info: null }) : ok({ user_info: userInfo(user) });
  },
});

type Match =
  { readonly kind: 'column'; readonly value: ColumnMatch } | { readonly kind: 'dict'; readonly value: JsonObject };

/** The type each field's `match` must have (the reference's names). */
const EXPECTED: Readonly<Record<MatchField, string | readonly string[]>> = {
  user_id: 'int',
  system_id: 'str',
  full_name: ['str', 'None'],
  email: 'str',
  is_active: 'bool',
  created_on: 'str',
  user_role: 'str',
  last_login_try: ['str', 'None'],
  last_login_success: ['str', 'None'],
  extra_info: 'dict',
};

/** `match` read as its field's type (normalised as stored), or the problem with it. */
function readMatch(by: MatchField, match: ActionInput<'user-lookup-match'>['match']): Match | Problem {
  const problem = (kind: Problem['problem']): Problem => ({
    param: 'match',
    problem: kind,
    required_type: EXPECTED[by],
  });
  const nullable = by === 'full_name' || by === 'last_login_try' || by === 'last_login_success';
  if (match === null) return nullable ? { kind: 'column', value: null } : problem('incorrect type');
  switch (by) {
    case 'user_id':
      return typeof match === 'number' ? { kind: 'column', value: match } : problem('incorrect type');
    case 'is_active':
      return typeof match === 'boolean' ? { kind: 'column', value: match } : problem('incorrect type');
    case 'extra_info':
      return typeof match === 'object' ? { kind: 'dict', value: match } : problem('incorrect type');
    case 'created_on':
    case 'last_login_try':
    case 'last_login_success': {
      if (typeof match !== 'string') return problem('incorrect type');
      const at = parseDateTime(match);
      return at === null ? problem('invalid value') : { kind: 'column', value: at };
    }
    case 'email':
    case 'full_name':
    case 'system_id':
    case 'user_role': {
      if (typeof match !== 'string') return problem('incorrect type');
      const value = by === 'email' ? normaliseEmail(match) : by === 'full_name' ? normaliseFullName(match) : match;
      return { kind: 'column', value };
    }
  }
}

/**
 * The users after `after` whose extra_info holds every item of `wanted`, a batch at a time: the database
 * prefilters, holdsItems decides. A search still going after MATCH_BUDGET_MS answers busy (503), as a statement
 * timeout does on PostgreSQL and MariaDB (docs/design.md#user-lookup-match-by-extra_info).
 */
async function* holding(deps: Deps, wanted: JsonObject, after: number): Batches {
  const deadline = deps.clock.now() + MATCH_BUDGET_MS;
  for await (const rows of deps.store.users.extraInfoCandidates(wanted, after, PAGE_BATCH)) {
    yield rows.filter((row) => holdsItems(row.extraInfo, wanted));
    if (deps.clock.now() > deadline) throw new UnavailableError('busy');
  }
}

const userLookupMatch = defineAction('user-lookup-match', {
  messages: { ok: LOOKUP_OK, failures: {} },
  async handle(deps, input): Promise<Result<Listing, 'invalid_params'>> {
    const match = readMatch(input.by, input.match);
    if ('param' in match) return invalid([match], { user_info: null, has_more: false });
    const after = input.after_user_id ?? 0;
    if (match.kind === 'dict') {
      return ok(await page(holding(deps, match.value, after)));
    }
    const by = input.by as Exclude<MatchField, 'extra_info'>;
    const column = match.value;
    return ok(await page(batchesAfter((from, limit) => deps.store.users.matchColumn(by, column, from, limit), after)));
  },
});

export const lookupHandlers = {
  'user-list': userList,
  'user-lookup-email': userLookupEmail,
  'user-lookup-match': userLookupMatch,
} satisfies FamilyHandlers<typeof lookupActions>;
