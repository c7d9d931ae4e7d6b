/**
 * Moves a test IAM's or gateway's clock forward (POST /__test/clock, test builds only) instead of
 * sleeping. The IAM must run with `env: CLOCK_ENV` (its tokens, sessions, links, limiters and store
 * entries judge time by that clock), the gateway with `GATEWAY_CLOCK_ENV` (token life, cookie
 * expiry). Moving it affects every test using that process: files that move it start their own
 * servers rather than the shared IAM.
 */
import { signRequestV2 } from '../../iam/client/hmac'

export const CLOCK_ENV = { IAM_TEST_ROUTES: '1' } as const
export const GATEWAY_CLOCK_ENV = { GATEWAY_TEST_CLOCK: '1' } as const

/**
 * Advances the IAM or gateway at `server.url` by `ms`; resolves with its new time (ms since epoch).
 * An IAM that requires HMAC (service.Hmac) gets the call signed with `hmac`.
 */
export async function advanceClock(server: { url: string }, ms: number, hmac?: { clientId: string; sharedSecret: string }): Promise<number> {
  const body = JSON.stringify({ advanceMs: ms })
  const signed = hmac ? signRequestV2({ ...hmac, method: 'POST', url: '/__test/clock', body }) : {}
  const res = await fetch(`${server.url}/__test/clock`, { method: 'POST', headers: { 'content-type': 'application/json', ...signed }, body })
  if (res.status !== 200) throw new Error(`moving the IAM clock failed (${res.status}): is it started with CLOCK_ENV / GATEWAY_CLOCK_ENV?`)
  return ((await res.json()) as { now: number }).now
}
