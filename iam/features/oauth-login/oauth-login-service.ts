/**
 * Login from a provider profile forwarded by the gateway. Identities are keyed by
 * (provider, provider user id), never by email. An email already in use links only when both the
 * provider and our account vouch for it (verified on both sides) and the account has no password:
 * an unverified provider address never creates over, or attaches to, an existing account, and an
 * address owned by a password account answers `email_taken` (409).
 */
import type { Transaction } from 'kysely'
import type { IamContext } from '../../context'
import type { Database, User, Visitor } from '../../db/schema'
import { isEmailShape, normalizeEmail } from '../email-checks/email-checks'
import { completePair, openSession, type OpenedSession, type TokenPair } from '../sessions/session-service'
import { findIdentity, findUserByEmail, findUserById, insertIdentity, insertUser, isUniqueViolation, rememberTimeZone, touchIdentity } from '../users/users-repo'
import { hasSecondFactor } from '../second-factors/repository'
import { issueChallenge, type SecondFactorChallenge } from '../second-factors/sign-in-step'
import { displayName, type OAuthProfile } from './provider-profile'
import { recordSecurityEvent } from '../security-events/repository'
import { isDeletionPending } from '../account-deletion/deletion-state'

/** Why a provider sign-in fails; the route maps each code to its status. */
export type OAuthLoginFailureCode = 'invalid_email' | 'email_taken' | 'banned'

export type OAuthLoginResult =
  | { ok: true; pair: TokenPair; userId: number; created: boolean }
  /** the account has a second factor: provider sign-in stands in for the password only (sign-in-step.ts) */
  | { ok: true; secondFactor: SecondFactorChallenge; userId: number; created: false }
  | { ok: false; code: OAuthLoginFailureCode }

export interface OAuthLoginInput {
  provider: string
  profile: OAuthProfile
  visitor: Visitor
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  /** the browser's IANA time zone, checked (iam/contract/time-zones.ts): the mails' zone, as for a password sign-in */
  timeZone?: string | null
}

type Outcome = { user: User; session: OpenedSession; created: boolean } | { user: User; secondFactor: true } | 'email_taken' | 'banned'

async function resolveAndOpen(ctx: IamContext, trx: Transaction<Database>, input: OAuthLoginInput, email: string): Promise<Outcome> {
  const now = new Date(ctx.now())
  const { profile } = input
  const identityRecord = { email, emailVerified: profile.emailVerified, profile: { ...profile }, now }
  let user: User | undefined
  let created = false
  const identity = await findIdentity(trx, input.provider, profile.providerUserId)
  if (identity) {
    user = await findUserById(trx, identity.user_id)
    await touchIdentity(trx, identity.id, identityRecord)
  } else {
    const existing = await findUserByEmail(trx, email)
    if (existing) {
      if (existing.password_hash || !existing.email_verified || !profile.emailVerified || isDeletionPending(existing)) return 'email_taken'
      user = existing
    } else {
      user = await insertUser(trx, {
        email,
        name: displayName(profile),
        passwordHash: null,
        emailVerified: profile.emailVerified,
        termsConsent: false,
        now,
        timeZone: input.timeZone ?? null,
      })
      created = true
    }
    await insertIdentity(trx, { userId: user.id, provider: input.provider, providerUserId: profile.providerUserId, ...identityRecord })
  }
  if (!user) throw new Error('oauth identity without its user')
  if (user.banned_until && user.banned_until.getTime() > now.getTime()) return 'banned'
  // the provider proved who this is, so no address is revealed: the account is disabled until its purge
  if (isDeletionPending(user)) return 'banned'
  if (await hasSecondFactor(trx, user.id)) return { user, secondFactor: true }
  const device = { userId: user.id, visitorRowId: input.visitor.id, ipAddress: input.ipAddress }
  // a new account's first event comes before its first sign-in's (ids order events of one moment)
  if (created) await recordSecurityEvent(trx, { type: 'signed_up', ...device, details: { method: 'oauth', provider: input.provider }, at: now })
  // the sign-in's event in the session's own statement
  // the mails' time zone follows the browser the person last signed in with (session-service.ts createSignInSession)
  if (input.timeZone && !created) await rememberTimeZone(trx, user.id, input.timeZone)
  const session = await openSession(ctx, trx, { ...device, fingerprint: input.fingerprint, remember: false }, (sessionId) => ({
    type: 'login_succeeded',
    ...device,
    details: { method: 'oauth', provider: input.provider, sessionId },
    at: now,
  }))
  return { user, session, created }
}

export async function oauthLogin(ctx: IamContext, input: OAuthLoginInput): Promise<OAuthLoginResult> {
  const email = normalizeEmail(input.profile.email)
  if (!isEmailShape(email)) return { ok: false, code: 'invalid_email' }
  // A parallel first login of the same identity or address loses the unique race once; the retry
  // then finds what the winner wrote.
  for (let attempt = 0; ; attempt++) {
    try {
      const outcome = await ctx.db.transaction().execute((trx) => resolveAndOpen(ctx, trx, input, email))
      if (outcome === 'email_taken' || outcome === 'banned') return { ok: false, code: outcome }
      if ('secondFactor' in outcome) {
        const challenge = await issueChallenge(ctx, { userId: outcome.user.id, visitorRowId: input.visitor.id, remember: false })
        return { ok: true, secondFactor: challenge, userId: outcome.user.id, created: false }
      }
      const pair = await completePair(ctx, outcome.session, { subject: outcome.user.public_id, roles: outcome.user.roles, visitor: input.visitor.visitor_id })
      return { ok: true, pair, userId: outcome.user.id, created: outcome.created }
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      if (attempt >= 1) return { ok: false, code: 'email_taken' }
    }
  }
}
