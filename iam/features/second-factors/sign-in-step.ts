/**
 * The second-factor step of sign-in: after a right password, an account with a
 * second factor gets a challenge instead of tokens; `completeSignIn` trades the challenge and a
 * TOTP or recovery code for a session. A challenge is 32 random bytes (only its SHA-256 stored),
 * bound to the device it was issued to, lives secondFactor.challengeTtlMs (5 min), allows
 * secondFactor.challengeAttempts (5) counted atomically before the code is looked at, and is used
 * once. Adaptive MFA keeps working after it: the session opened here is guarded like any other.
 */
import { suspensionOf, type SuspensionView } from '../users/suspension'
import { randomBytes } from 'node:crypto'
import type { IamContext } from '../../context'
import type { Visitor } from '../../db/schema'
import { sha256Hex } from '../sessions/refresh-token'
import { recordSecurityEvent } from '../security-events/repository'
import { createSignInSession, type FirstFactor, type SignInAmr, type TokenPair } from '../sessions/session-service'
import { forgiveLoginAttempts } from '../users/login-delay'
import { findUserById } from '../users/users-repo'
import type { CodeLocked } from './code-budget'
import * as repo from './repository'
import { verifySecondFactor, type SecondFactorMethod } from './verify-factor'
import { isDeletionPending } from '../account-deletion/deletion-state'

export interface SecondFactorChallenge {
  challenge: string
  methods: SecondFactorMethod[]
}

/** Housekeeping horizon: challenges dead this long are deleted when a new one is issued. */
const KEEP_DEAD_MS = 24 * 60 * 60 * 1000

/**
 * The `amr` of a session whose first step was `first` and whose second was a TOTP or recovery code
 * (RFC 8176 method references: the first factor's, `otp`, `mfa`). Null: a challenge stored before
 * the first factor was kept, which came after a password.
 */
export function amrAfterSecondFactor(first: string | null): SignInAmr {
  if (first === 'email' || first === 'email otp') return 'email otp mfa'
  if (first === 'saml') return 'saml otp mfa'
  return 'pwd otp mfa'
}

export async function issueChallenge(
  ctx: IamContext,
  input: { userId: number; visitorRowId: number; remember: boolean; firstFactor?: FirstFactor },
): Promise<SecondFactorChallenge> {
  const challenge = randomBytes(32).toString('base64url')
  const now = ctx.now()
  await repo.deleteExpiredChallenges(ctx.db, new Date(now - KEEP_DEAD_MS))
  const challengeHash = sha256Hex(challenge)
  await repo.insertChallenge(ctx.db, {
    challenge_hash: challengeHash,
    user_id: input.userId,
    visitor_id: input.visitorRowId,
    remember: input.remember,
    first_factor: input.firstFactor ?? 'pwd',
    created_at: new Date(now),
    expires_at: new Date(now + ctx.config.secondFactor.challengeTtlMs),
  })
  // a new challenge ends the ones issued before it (of two sign-ins at once, the later one stays live)
  await repo.endOtherChallenges(ctx.db, { userId: input.userId, keep: challengeHash, now: new Date(now) })
  return { challenge, methods: ['totp', 'recovery_code'] }
}

export type CompleteSignInResult =
  | { ok: true; pair: TokenPair; userId: number }
  | { ok: false; code: 'invalid_challenge' | 'invalid_code' }
  | { ok: false; code: 'banned'; suspension: SuspensionView }
  | CodeLocked

export async function completeSignIn(
  ctx: IamContext,
  input: { challenge: string; code: string; visitor: Visitor; ipAddress: string; fingerprint: Record<string, unknown> | null },
): Promise<CompleteSignInResult> {
  const hash = sha256Hex(input.challenge)
  const now = ctx.now()
  const max = ctx.config.secondFactor.challengeAttempts
  const attempt = await repo.countChallengeAttempt(ctx.db, { hash, visitorRowId: input.visitor.id, now: new Date(now), max })
  if (!attempt) return { ok: false, code: 'invalid_challenge' }
  const actor = { visitorRowId: input.visitor.id, ipAddress: input.ipAddress }
  const verified = await verifySecondFactor(ctx, { userId: attempt.user_id, code: input.code, actor, purpose: 'sign_in' })
  if (!verified.ok) return verified
  if (!(await repo.useChallenge(ctx.db, hash, new Date(now)))) return { ok: false, code: 'invalid_challenge' }
  const user = await findUserById(ctx.db, attempt.user_id)
  // a deletion confirmed between the password and this step ends the sign-in like a stale challenge
  if (!user || isDeletionPending(user)) return { ok: false, code: 'invalid_challenge' }
  const suspension = suspensionOf(user, now)
  if (suspension) return { ok: false, code: 'banned', suspension }
  const pair = await createSignInSession(ctx, user, input, attempt.remember, undefined, amrAfterSecondFactor(attempt.first_factor))
  // this step's request spent a point of the IP's login budget; the password step gave its own back
  await forgiveLoginAttempts(ctx, { email: user.email, visitorRowId: input.visitor.id, ipAddress: input.ipAddress })
  await recordSecurityEvent(ctx.db, { type: 'second_factor_passed', userId: user.id, ...actor, details: { method: verified.method }, at: new Date(now) })
  return { ok: true, pair, userId: user.id }
}
