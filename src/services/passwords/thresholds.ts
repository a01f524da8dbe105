/**
 * The password policy's thresholds (`--passpolicy`, or a request's own in `user-validatepass`): owned
 * here, where policy.ts applies them; config decodes the option into them.
 */

export interface PassPolicy {
  readonly minPassLength: number;
  readonly maxUnsafeSimilarity: number;
  readonly maxCharFrequency: number;
  readonly minPwnedMatches: number;
}

/** The spec's defaults. */
export const DEFAULT_PASS_POLICY: PassPolicy = {
  minPassLength: 12,
  maxUnsafeSimilarity: 50,
  maxCharFrequency: 0.3,
  minPwnedMatches: 25,
};
