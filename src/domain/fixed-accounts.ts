/**
 * The three fixed accounts of every database (docs/design.md#fixed-accounts-and-new-users): 1 the superuser, 2 the
 * anonymous user, 3 a locked dummy whose hash equalises the timing of checks on unknown users. Their ids are
 * part of the contract with frontends, so every part reads them from here.
 */
export const SUPERUSER_ID = 1;
export const ANONYMOUS_ID = 2;
export const DUMMY_ID = 3;
