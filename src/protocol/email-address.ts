/**
 * Emails are compared in this form everywhere (sign-up, login, lookup, edit, rate-limit keys): NFKC,
 * lower case, trimmed, so `A@x.org` and `a@x.org` are one address (the spec's case-insensitive logins).
 */
export function normaliseEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase().trim();
}
