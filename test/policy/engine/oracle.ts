/**
 * An independent oracle: a literal transcription of the reference's access and limit checks
 * (shared/reference/authnzerver.md §4.3 and §4.4), working on the policy document as written, the way
 * the reference's Python does. It imports nothing from src/services/policy, so the property tests compare
 * two implementations that share no code.
 */

type Doc = Record<string, unknown>;
type Lists = Record<string, string[] | undefined>;

/** Own members only (a role called "constructor" must not find Object.prototype.constructor). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names what the JSON holds
function get<T>(record: unknown, key: string): T | undefined {
  if (record === null || typeof record !== 'object' || !Object.hasOwn(record, key)) return undefined;
  return (record as Record<string, T>)[key];
}

/** Python's int() on a string: surrounding whitespace, an optional sign, digits; anything else raises. */
function pyInt(text: string): number {
  const match = /^\s*([+-]?\d+)\s*$/.exec(text);
  if (match === null) throw new Error(`invalid literal for int(): '${text}'`);
  return Number(match[1]);
}

/** §4.3: "check_user_access". Returns granted or not; an exception (unknown role) denies. */
export function oracleAccess(
  policy: Doc,
  userid: number,
  role: string,
  action: string,
  targetName: string,
  targetOwner: number,
  targetVisibility: string,
  targetSharedwith: string,
): boolean {
  // Step A: the relationship gate.
  let ok: boolean;
  if (role === 'superuser' || role === 'staff') {
    ok = true;
  } else if (targetVisibility === 'private') {
    ok = userid === targetOwner;
  } else if (targetVisibility === 'shared') {
    if (targetSharedwith !== '' && targetSharedwith.toLowerCase() !== 'none') {
      try {
        const sharedwith = targetSharedwith.split(',').map(pyInt);
        ok = sharedwith.includes(userid) || userid === targetOwner;
        if (sharedwith.includes(2)) ok = true;
      } catch {
        ok = false;
      }
    } else {
      ok = userid === targetOwner;
    }
  } else if (targetVisibility === 'unlisted' || targetVisibility === 'public') {
    ok = true;
  } else {
    ok = false;
  }

  // Step B: the candidate actions.
  const rolePolicy = get<Doc>(get(policy, 'role_policy'), role);
  if (rolePolicy === undefined) return false; // the reference raises: "exception when checking the DB"
  const itemPolicy = get<Lists>(get(policy, 'item_policy'), targetName);

  const candidateSet = (owned: boolean): string[] => {
    if (itemPolicy === undefined) return [];
    if ((itemPolicy['invalid_roles'] ?? []).includes(role)) return [];
    if (!(itemPolicy['valid_visibilities'] ?? []).includes(targetVisibility)) return [];
    const allowed = owned
      ? (get<string[]>(rolePolicy, 'allowed_actions_for_owned') ?? [])
      : (get<string[]>(get(rolePolicy, 'allowed_actions_for_other'), targetVisibility) ?? []);
    return allowed.filter((a) => (itemPolicy['valid_role_actions'] ?? []).includes(a));
  };

  let perms: string[];
  if (userid === targetOwner && (get<string[]>(rolePolicy, 'can_own_items') ?? []).includes(targetName)) {
    perms = candidateSet(true);
  } else if (userid !== targetOwner) {
    perms = candidateSet(false);
  } else {
    perms = [];
  }
  return perms.includes(action) && ok;
}

/** §4.4: "check_user_limit" on a finite number. */
export function oracleLimit(policy: Doc, role: string, limitName: string, value: number): boolean {
  const rolePolicy = get<Doc>(get(policy, 'role_policy'), role);
  if (rolePolicy === undefined) return false;
  const limit = get<{ type: string; limit: number }>(get(rolePolicy, 'limits'), limitName);
  if (limit === undefined) return true;
  const definition = get<{ type: string; operator: string }>(get(policy, 'limits'), limit.type);
  if (definition === undefined) return false;
  const cast = definition.type === 'int' ? Math.trunc : (x: number): number => x;
  const v = cast(value);
  const l = cast(limit.limit);
  if (definition.operator === 'lt') return v < l;
  if (definition.operator === 'gt') return v > l;
  return false;
}
