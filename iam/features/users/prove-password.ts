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
import { replacePasswordHash } from './users-repo'

export type PasswordProof = { ok: true } | { ok: false; code: 'rate_limited'; decision: Extract<LimitDecision, { ok: false }> } | { ok: false; code: 'wrong_password' }

/**
 * `passwordHash` null (an account without a password) never proves. `visitorRowId` null (no
 * device cookie) counts as a device the account never signed in on. Given `userId`, a right
 * password whose hash needs replacing (older parameters, or imported from another system) is
 * rehashed as a login does: compare-and-set on the old hash.
 */
export async function proveAccountPassword(
  ctx: IamContext,
  input: { email: string; passwordHash: string | null; password: string; visitorRowId: number | null; ipAddress: string; userId?: number },
): Promise<PasswordProof> {
  const visitorRowId = input.visitorRowId ?? 0
  const admitted = await admitLoginAttempt(ctx, { email: input.email, visitorRowId, ipAddress: input.ipAddress })
  if (!admitted.ok) {
    const decision = admitted.code === 'limited' ? admitted.decision : { ok: false as const, retryMs: admitted.retryMs, permanent: false }
    return { ok: false, code: 'rate_limited', decision }
  }
  const hasher = getPasswordHasher(ctx)
  const verified = input.passwordHash ? await hasher.verify(input.passwordHash, input.password) : { ok: false, needsRehash: false }
  if (!verified.ok) return { ok: false, code: 'wrong_password' }
  if (verified.needsRehash && input.userId !== undefined && input.passwordHash) {
    await replacePasswordHash(ctx.db, input.userId, input.passwordHash, await hasher.hash(input.password), new Date(ctx.now()))
  }
  await forgiveLoginAttempts(ctx, { email: input.email, visitorRowId, ipAddress: input.ipAddress })
  return { ok: true }
}
