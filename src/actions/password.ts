/** user-validatepass (the password-changing actions come with the accounts). */
import { fail, ok } from '../domain/result.js';
import { defineAction } from './define.js';

/** The spec's defaults for the two thresholds the request may set (DESIGN decision 14). */
const VALIDATE_DEFAULTS = { minPassLength: 12, maxUnsafeSimilarity: 30 } as const;

export const userValidatepass = defineAction<'user-validatepass', 'insecure_password'>({
  name: 'user-validatepass',
  messages: {
    ok: 'Your password is acceptable.',
    failures: { insecure_password: 'Your password is not acceptable.' },
  },
  async handle(deps, input) {
    const server = deps.passwords.policy;
    const verdict = await deps.passwords.check(
      input.password,
      { email: input.email, fullName: input.full_name },
      {
        minPassLength: input.min_pass_length ?? VALIDATE_DEFAULTS.minPassLength,
        maxUnsafeSimilarity: input.max_unsafe_similarity ?? VALIDATE_DEFAULTS.maxUnsafeSimilarity,
        maxCharFrequency: input.max_character_frequency ?? server.maxCharFrequency,
        minPwnedMatches: input.min_pwned_matches ?? server.minPwnedMatches,
      },
    );
    return verdict.ok ? ok({}) : fail('insecure_password', {}, verdict.messages);
  },
});
