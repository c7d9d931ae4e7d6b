/**
 * The test build's clock: the wall clock plus an offset that only grows, so tests move the IAM's
 * time forward (POST /__test/clock) instead of sleeping. Never behind the wall clock: the store's
 * Redis clean-up expiries (PX) stay later than what this clock calls expired.
 */
let offsetMs = 0

export const testClockNow = (): number => Date.now() + offsetMs

/** Moves the clock forward by `ms`; answers the new time. */
export function advanceTestClock(ms: number): number {
  offsetMs += ms
  return testClockNow()
}
