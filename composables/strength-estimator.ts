/**
 * The zxcvbn-ts estimate the IAM applies to new passwords (iam/features/passwords/password-strength.ts),
 * loaded on first use: its dictionaries are most of its weight, and pages without a new-password
 * field, or a person who never types one, never fetch them. One load per page, shared by every meter.
 */
type Estimator = typeof import('../iam/features/passwords/password-strength')

let loading: Promise<Estimator> | undefined

export function loadStrengthEstimator(): Promise<Estimator> {
  loading ??= import('../iam/features/passwords/password-strength').catch((error: unknown) => {
    // a failed chunk load (offline, a new deployment) may succeed on the next keystroke
    loading = undefined
    throw error
  })
  return loading
}
