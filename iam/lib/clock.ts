/**
 * The IAM's one time source (ms since epoch). The context's `now`, the shared store's expiries and
 * the limiters all read it through `clockNow`, so everything that judges time agrees, and the test
 * build can move all of them at once (test-build/plugins/clock.ts) instead of tests sleeping.
 * Production never replaces the source: it is the wall clock.
 */
export type Clock = () => number

let source: Clock = Date.now

export const clockNow: Clock = () => source()

/** Swaps the source behind `clockNow`; only the test build calls this. */
export function replaceClockSource(next: Clock): void {
  source = next
}
