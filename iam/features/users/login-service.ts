/**
 * Password login. Never reveals whether an account exists: an unknown address (or an account with
 * no password) costs one Argon2 verification against a dummy hash, like a wrong password does, and
 * both answer `invalid_credentials`. A hash made with older parameters is replaced after success.
 *
 * Per-account throttle (rate_limiters.loginAccountDelay, login-delay.ts): before anything else,
 * the attempt is admitted by the account's progressive delay, keyed on the email as typed
 * (normalised), never on whether the account exists; a device that signed in to it before has its
 * own delay, so an attack from elsewhere does not slow the owner's usual devices. A refused
 * attempt answers `throttled` (the route's 429 with Retry-After) without an Argon2 verification
 * and without reading anything beyond the one statement every attempt makes (the device row and
 * the account of the address as typed, login-device.ts; the refusal does not depend on it), so
 * known and unknown addresses are refused alike in status, body and timing. 429 rather than a
 * fake 401: the owner typing the right password learns to wait instead of believing the password
 * wrong, and nothing about the account leaks since the refusal depends only on recent attempts for
 * that address. A delay is not a lock-out (no block on an email alone): the next
 * attempt after the delay is heard.
 *
 * The bot check after failures (config botChallenge.loginAfterFailures, docs/bot-challenge.md): once
 * the client IP or the address has that many recent failures, read from the admission's own store
 * call (login-delay.ts), the attempt must carry a solved `botProof`, checked before the Argon2
 * verification. It depends only on those counts, so an unknown address is asked exactly like a
 * known one; an ordinary sign-in, below the threshold, costs nothing more.
 *
 * An account scheduled for deletion (account-deletion/deletion-state.ts) is verified like any
 * other: a wrong password answers `invalid_credentials` after the same one Argon2 verification,
 * and only the right password learns the state (`deletion_pending`: when it is erased, and a proof
 * that asks for the restore link, account-deletion/restore-link.ts). No session opens. Past its due
 * moment the account is read as absent, like one the purge erased.
 */
import { findSuspension, type SuspensionView } from './suspension'
import { isPlatformAdmin } from '../admin/platform-admins'
import { ssoRequiredFor } from '../enterprise/sso-required'
import type { IamContext } from '../../context'
import type { Visitor } from '../../db/schema'
import { runAfterResponse } from '../../lib/background'
import { isDeletionDue } from '../account-deletion/deletion-state'
import { issueRestoreProof, type RestoreProof } from '../account-deletion/restore-link'
import { checkBotProof, type BotProofFailure } from '../bot-challenge/bot-proof'
import { normalizeEmail } from '../email-checks/email-checks'
import { getPasswordHasher } from '../passwords/password-service'
import { recordSecurityEvent, type SecurityEventInput } from '../security-events/repository'
import { createSignInSession, type TokenPair } from '../sessions/session-service'
import { issueChallenge, type SecondFactorChallenge } from '../second-factors/sign-in-step'
import { admitLoginAttempt, forgiveLoginAttempts, refundLoginIpPoints, type RecentFailures } from './login-delay'
import { loginLookupKey, type PrefetchedAccount } from './login-device'
import { findUserForLogin, replacePasswordHash } from './users-repo'

export interface LoginInput {
  email: string
  password: string
  visitor: Visitor
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  remember: boolean
  /** a solved bot challenge (bot-challenge/bot-proof.ts): looked at only once recent failures ask for one */
  botProof?: string
  /** the account read with the device row (login-device.ts); read here when absent or for another key */
  prefetched?: PrefetchedAccount
}

/** Why a login fails: nothing tells an unknown address from a wrong password. */
export type LoginFailureCode = 'invalid_credentials' | 'banned' | 'deletion_pending' | 'throttled' | 'limited' | 'sso_required' | 'bot_check'

export type LoginResult =
  | { ok: true; pair: TokenPair; userId: number }
  /** the password was right and the account has a second factor: no session yet (sign-in-step.ts) */
  | { ok: true; secondFactor: SecondFactorChallenge; userId: number }
  | { ok: false; code: 'invalid_credentials' }
  /** the right password of a suspended account: its end and reason, for the person (suspension.ts) */
  | { ok: false; code: 'banned'; suspension: SuspensionView }
  /** the right password of an account scheduled for deletion: erased at `dueAt` unless restored; no session */
  | { ok: false; code: 'deletion_pending'; dueAt: Date; restore: RestoreProof }
  | { ok: false; code: 'throttled'; retryMs: number }
  /** the address's domain requires its organization's sign-in (enterprise/sso-required.ts): no password was verified */
  | { ok: false; code: 'sso_required'; connectionId: string }
  /** refused by the per-IP budget or the IP + address limiter (rate_limiters.login) before anything else */
  | { ok: false; code: 'limited'; decision: { ok: false; retryMs: number; permanent: boolean } }
  /** recent failures ask for a solved bot challenge and this attempt has none, or a bad one */
  | { ok: false; code: 'bot_check'; check: BotProofFailure }

/** Whether the recent failures of the IP or the address ask for a solved bot challenge (config botChallenge). */
export function loginNeedsBotProof(ctx: Pick<IamContext, 'config'>, failures: RecentFailures): boolean {
  const { enabled, loginAfterFailures } = ctx.config.botChallenge
  return enabled && loginAfterFailures > 0 && Math.max(failures.ip, failures.address) >= loginAfterFailures
}

/**
 * An address whose domain requires its organization's sign-in (enterprise/sso-required.ts) is
 * refused first: before the admission (no limiter counts it), before any password is verified (no
 * Argon2), the same answer for a right and a wrong password, with or without an account, since the
 * domain alone decides (http/sso-required.ts). An ordinary address costs a Map lookup here.
 *
 * Break-glass: a platform administrator of such a domain keeps password sign-in, so an identity
 * provider that is broken or misconfigured cannot lock the operators out. Their account is the one
 * the device step read already (no statement more). Their attempt then runs the whole ordinary way
 * (admission, delay, Argon2); a wrong password still answers `sso_required`, so the status and
 * body do not single an administrator's address out (the time of one Argon2 verification and the
 * account delay's 429 after repeated failures still do, for whoever tries passwords on it).
 */
export async function login(ctx: IamContext, input: LoginInput): Promise<LoginResult> {
  const sso = await ssoRequiredFor(ctx.db, input.email)
  if (!sso) return passwordLogin(ctx, input)
  const account = input.prefetched?.key === loginLookupKey(input.email) ? input.prefetched.account : await findUserForLogin(ctx.db, normalizeEmail(input.email))
  if (!isPlatformAdmin(account?.roles)) return { ok: false, code: 'sso_required', connectionId: sso.connectionId }
  const result = await passwordLogin(ctx, input)
  return !result.ok && result.code === 'invalid_credentials' ? { ok: false, code: 'sso_required', connectionId: sso.connectionId } : result
}

async function passwordLogin(ctx: IamContext, input: LoginInput): Promise<LoginResult> {
  const attempt = { email: input.email, visitorRowId: input.visitor.id }
  const admitted = await admitLoginAttempt(ctx, { ...attempt, ipAddress: input.ipAddress })
  if (!admitted.ok) return admitted
  if (loginNeedsBotProof(ctx, admitted.failures)) {
    // the attempt stays counted: a script that never solves keeps meeting the limiters as before
    const proof = await checkBotProof(ctx, input.botProof, input.ipAddress)
    if (!proof.ok) return { ok: false, code: 'bot_check', check: proof.code }
  }
  const hasher = getPasswordHasher(ctx)
  const user = input.prefetched?.key === loginLookupKey(input.email) ? input.prefetched.account : await findUserForLogin(ctx.db, normalizeEmail(input.email))
  // an account past its due moment is the purge's: the same work and answer as no account
  if (!user || !user.password_hash || isDeletionDue(user, ctx.now())) {
    await hasher.verifyDummy(input.password)
    ctx.log.debug('login verification', { argon2Verifications: hasher.verifications, known: false })
    return { ok: false, code: 'invalid_credentials' }
  }
  const verified = await hasher.verify(user.password_hash, input.password)
  ctx.log.debug('login verification', { argon2Verifications: hasher.verifications, known: true })
  const now = ctx.now()
  const auditEvent = (type: 'login_succeeded' | 'login_failed', details: Record<string, unknown>): SecurityEventInput => ({
    type,
    userId: user.id,
    visitorRowId: input.visitor.id,
    ipAddress: input.ipAddress,
    details,
    at: new Date(now),
  })
  const audit = (type: 'login_succeeded' | 'login_failed', details: Record<string, unknown>) => recordSecurityEvent(ctx.db, auditEvent(type, details))
  if (!verified.ok) {
    // off the request path: an unknown address writes nothing, so a write here would be a timing tell
    void audit('login_failed', { method: 'password', reason: 'invalid_credentials' }).catch((error: Error) =>
      ctx.log.error('security event not recorded', { type: 'login_failed', error: error.message }),
    )
    return { ok: false, code: 'invalid_credentials' }
  }
  // after the password, like the ban, so nobody else learns the state; before the ban, so a
  // suspended owner still hears that the account is about to be erased and can keep it
  if (user.deletion_due_at) {
    const restore = await issueRestoreProof(ctx, { userId: user.id, visitorRowId: input.visitor.id })
    await audit('login_failed', { method: 'password', reason: 'deletion_pending' })
    // a right password is not a failure: its point of the IP's budget goes back, as for a second factor's step
    runAfterResponse(
      () => refundLoginIpPoints(ctx, input.ipAddress),
      (error) => ctx.log.warn('login: IP budget point not given back', { error: error.message }),
    )
    return { ok: false, code: 'deletion_pending', dueAt: user.deletion_due_at, restore }
  }
  // checked after the password so a ban does not reveal that an address has an account
  if (user.banned_until && user.banned_until.getTime() > now) {
    await audit('login_failed', { method: 'password', reason: 'banned' })
    // read here, not in the login's one lookup: only a suspended account's right password pays for it
    const suspension = await findSuspension(ctx.db, user.id, now)
    return { ok: false, code: 'banned', suspension: suspension ?? { until: null, reason: null } }
  }
  if (verified.needsRehash) {
    await replacePasswordHash(ctx.db, user.id, user.password_hash, await hasher.hash(input.password), new Date(now))
  }
  // acted on only after the password was right: nothing before it differs for accounts with a second factor
  if (user.has_second_factor) {
    const secondFactor = await issueChallenge(ctx, { userId: user.id, visitorRowId: input.visitor.id, remember: input.remember })
    // a right password is not a failure: its point of the IP's budget goes back (login-delay.ts);
    // the address's failures are forgiven once the second factor passed
    runAfterResponse(
      () => refundLoginIpPoints(ctx, input.ipAddress),
      (error) => ctx.log.warn('login: IP budget point not given back', { error: error.message }),
    )
    return { ok: true, secondFactor, userId: user.id }
  }
  // the session and its audit row are one statement
  const pair = await createSignInSession(ctx, user, input, input.remember, (sessionId) => auditEvent('login_succeeded', { method: 'password', sessionId }))
  // forgiving this address's failures (the delay and the IP + address limiter) and giving back the
  // point this attempt spent of the IP's budget (which keeps counting other failures) is one store call started before the answer is written and awaited at shutdown
  // (lib/background.ts), not waited for by the answer; it only ever follows a right password
  const forgive = { ...attempt, deviceMarkedAt: admitted.deviceMarkedAt, ipAddress: input.ipAddress }
  runAfterResponse(
    () => forgiveLoginAttempts(ctx, forgive),
    (error) => ctx.log.warn('login: earlier failures not forgiven', { error: error.message }),
  )
  return { ok: true, pair, userId: user.id }
}
