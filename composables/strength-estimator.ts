/**
 * The zxcvbn-ts estimate the IAM applies to new passwords (shared/password-strength.ts), loaded on
 * first use: its dictionaries are most of its weight, and pages without a new-password field, or a
 * person who never types one, never fetch them. One load per page, shared by every meter. Imported
 * through this layer's #identity-shared alias (nuxt.config.ts): the server build leaves shared/ to
 * Nitro, which resolves an alias but not a path relative to this file.
 */
type Estimator = typeof import('#identity-shared/password-strength')

let loading: Promise<Estimator> | undefined

export function loadStrengthEstimator(): Promise<Estimator> {
  loading ??= import('#identity-shared/password-strength').catch((error: unknown) => {
    // a failed chunk load (offline, a new deployment) may succeed on the next keystroke
    loading = undefined
    throw error
  })
  return loading
}
