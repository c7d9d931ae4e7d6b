/**
 * Signup: checks the password and the address, hashes, then writes the user, the first session and
 * the `signed_up` security event in ONE transaction. The unique index on lower(email) decides races: of 50 parallel signups with
 * one address exactly one commits; the others map the violation to `email_taken`.
 *
 * A sign-up that carries the token of a pending organization invitation of the very address
 * signing up starts confirmed: the token came only in the mail sent to that address, which is what
 * the confirmation mail would prove again. Any other token (another address, used, revoked,
 * expired, unknown) changes nothing, so the answer is the same as without one.
 */
import type { Locale } from '../../contract/locales'
import type { IamContext } from '../../context'
import type { Visitor } from '../../db/schema'
import { checkEmailAddress } from '../email-checks/email-checks'
import { checkNewPassword, getPasswordHasher, type NewPasswordFailureCode, type NewPasswordWarning } from '../passwords/password-service'
import { sendVerificationMailLater } from '../account-actions/verify-email'
import { completePair, openSession, type TokenPair } from '../sessions/session-service'
import { insertUser, isUniqueViolation } from './users-repo'
import { invitationAddress, pendingInvitationAddress } from '../organizations/invitations'

export interface SignupInput {
  email: string
  password: string
  name: string
  remember: boolean
  visitor: Visitor
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  /** the browser's IANA time zone, checked (iam/contract/time-zones.ts): kept on the account for its mails */
  timeZone?: string | null
  /** the language the request asked for: the verification mail's */
  requestLocale?: Locale
  /** the token of the organization invitation the person followed to sign up, if any */
  invitationToken?: string
}

export type SignupResult =
  | { ok: true; pair: TokenPair; userId: number; warnings: NewPasswordWarning[] }
  /** the address fails the checks (`reason` says why) */
  | { ok: false; code: 'email_invalid'; reason: string }
  | { ok: false; code: NewPasswordFailureCode; reason: string }
  | { ok: false; code: 'email_taken' }

export type SignupFailureCode = Extract<SignupResult, { ok: false }>['code']

export async function signup(ctx: IamContext, input: SignupInput): Promise<SignupResult> {
  const email = await checkEmailAddress(input.email, { ...ctx.config.emailChecks }, (msg, fields) => ctx.log.warn(msg, fields))
  if (!email.ok) return { ok: false, code: 'email_invalid', reason: email.reason }
  const password = await checkNewPassword(ctx, input.password, { email: email.email, name: input.name })
  if (!password.ok) return password
  const passwordHash = await getPasswordHasher(ctx).hash(input.password)
  const now = ctx.now()
  const confirmedByInvitation = input.invitationToken !== undefined && (await invitedHere(ctx, input.invitationToken, email.email, now))
  try {
    const created = await ctx.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, {
        email: email.email,
        name: input.name,
        passwordHash,
        emailVerified: confirmedByInvitation,
        termsConsent: true,
        now: new Date(now),
        timeZone: input.timeZone ?? null,
      })
      // the account's first security event, in the session's own statement (no round trip of its own)
      const session = await openSession(
        ctx,
        trx,
        { userId: user.id, visitorRowId: input.visitor.id, ipAddress: input.ipAddress, fingerprint: input.fingerprint, remember: input.remember, amr: 'pwd' },
        (sessionId) => ({
          type: 'signed_up',
          userId: user.id,
          visitorRowId: input.visitor.id,
          ipAddress: input.ipAddress,
          details: confirmedByInvitation ? { method: 'password', sessionId, emailConfirmedBy: 'invitation' } : { method: 'password', sessionId },
          at: new Date(now),
        }),
      )
      return { user, session }
    })
    const pair = await completePair(ctx, created.session, { subject: created.user.public_id, roles: created.user.roles, visitor: input.visitor.visitor_id })
    ctx.log.info('user signed up', { userId: created.user.id })
    // the account works at once; the address counts as verified only once the mailed link is used
    // (or already is: the invitation's mail proved it)
    if (!confirmedByInvitation) sendVerificationMailLater(ctx, created.user, input.visitor.id, input.requestLocale)
    return { ok: true, pair, userId: created.user.id, warnings: password.warnings }
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, code: 'email_taken' }
    throw error
  }
}

/** Whether `token` names a pending invitation of `email` (compared as invitations store addresses: trimmed, lower case). */
async function invitedHere(ctx: IamContext, token: string, email: string, now: number): Promise<boolean> {
  const invited = await pendingInvitationAddress(ctx.db, { token, now })
  return invited !== null && invited === invitationAddress(email)
}
