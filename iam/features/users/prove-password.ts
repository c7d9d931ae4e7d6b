/**
 * The account's password given again by someone already signed in or holding a link (to
 * re-authenticate a session, to confirm an address on another device): every guess is admitted
 * and counted exactly like a POST /login attempt (login-delay.ts), so neither route is a password
 * oracle, and a right password forgives the attempts as a sign-in does.
 */
import type { IamContext } from '../../context'
import { getPasswordHasher } from '../passwords/password-service'
import type { LimitDecision } from '../rate-limits/limiter'
import { admitLoginAttempt, forgiveLoginAttempts } from './login-delay'

export type PasswordProof = { ok: true } | { ok: false; code: 'rate_limited'; decision: Extract<LimitDecision, { ok: false }> } | { ok: false; code: 'wrong_password' }

/**
 * `passwordHash` null (an account without a password) never proves. `visitorRowId` null (no
 * device cookie) counts as a device the account never signed in on.
 */
export async function proveAccountPassword(
  ctx: IamContext,
  input: { email: string; passwordHash: string | null; password: string; visitorRowId: number | null; ipAddress: string },
): Promise<PasswordProof> {
  const visitorRowId = input.visitorRowId ?? 0
  const admitted = await admitLoginAttempt(ctx, { email: input.email, visitorRowId, ipAddress: input.ipAddress })
  if (!admitted.ok) {
    const decision = admitted.code === 'limited' ? admitted.decision : { ok: false as const, retryMs: admitted.retryMs, permanent: false }
    return { ok: false, code: 'rate_limited', decision }
  }
  const verified = input.passwordHash ? await getPasswordHasher(ctx).verify(input.passwordHash, input.password) : { ok: false }
  if (!verified.ok) return { ok: false, code: 'wrong_password' }
  await forgiveLoginAttempts(ctx, { email: input.email, visitorRowId, ipAddress: input.ipAddress })
  return { ok: true }
}
