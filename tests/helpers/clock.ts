/**
 * Moves a test IAM's clock forward (POST /__test/clock, test build only) instead of sleeping. The
 * IAM must run with the test routes on (`env: CLOCK_ENV`); its tokens, sessions, links, limiters
 * and store entries all judge time by that clock. Moving it affects every test using that process:
 * files that move it start their own IAM rather than a shared one.
 */
export const CLOCK_ENV = { IAM_TEST_ROUTES: '1' } as const

/** Advances the IAM at `iam.url` by `ms`; resolves with its new time (ms since epoch). */
export async function advanceClock(iam: { url: string }, ms: number): Promise<number> {
  const res = await fetch(`${iam.url}/__test/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: ms }),
  })
  if (res.status !== 200) throw new Error(`moving the IAM clock failed (${res.status}): is it started with env CLOCK_ENV?`)
  return ((await res.json()) as { now: number }).now
}
