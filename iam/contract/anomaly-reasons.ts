/**
 * Why the unusual-sign-in check asked for the emailed code, as the person would say it: the mail
 * and every page that asks for the code use these words (docs/anomalies.md lists the checks).
 * Each completes "We sent you a code because ...".
 */
const REASONS: Record<string, string> = {
  NEW_DEVICE: 'this browser is not the one this sign-in started on',
  IDLE_DEVICE: 'this sign-in was not used for a while',
  TOO_MANY_SESSIONS: 'your account is signed in on many devices',
  SESSION_VELOCITY: 'your account was signed in on several new devices within a few minutes',
  IP_DRIFT: 'you are connecting from a different network',
  DEVICE_REPUTATION: 'this network or device looks automated',
  FINGERPRINT_DRIFT: 'this browser or location looks different from before',
}

/** The words for an anomaly type; a type without its own words gets the general ones. */
export function anomalyReason(type: string): string {
  return Object.hasOwn(REASONS, type) ? REASONS[type]! : 'this sign-in looks different from usual'
}
