/**
 * Email change (POST /update/email): a custom flow with reason `change_email`.
 * The new address is checked (format, disposable, MX) before anything is spent; then one
 * transaction consumes the link and code, moves the address and revokes every other session, so
 * an address in use (the unique index says so) rolls all of it back. The old address is told and
 * may undo the change (undo-email-change.ts); the new one stays unverified until its link is used.
 */
import type { IamContext } from '../../context'
import { checkEmailAddress } from '../email-checks/email-checks'
import { maskEmail } from '../mfa/flows'
import { consumeLink } from '../mfa/links'
import { CHANGE_EMAIL_REASON } from '../mfa/purposes'
import { recordSecurityEvent } from '../security-events/repository'
import type { TokenPair } from '../sessions/session-service'
import { reissueSession } from '../mfa/reissue-session'
import { revokeFamilies } from '../sessions/sessions-repo'
import { isUniqueViolation } from '../users/users-repo'
import type { SessionUser } from '../mfa/session-flow'
import { attemptProof, locateFlow, type FlowProof } from '../mfa/flow-proof'
import { sendEmailChangedNotice } from './undo-email-change'
import { sendVerificationMailLater } from './verify-email'
import { codeFailure, fail, linkFailure, type ActionFailure, type ActionLimited } from '../mfa/action-failures'
import type { Actor } from '../security-events/repository'

const isChangeEmail = (purpose: string) => purpose === CHANGE_EMAIL_REASON

export async function changeEmail(
  ctx: IamContext,
  input: { proof: FlowProof; newEmail: string; user: SessionUser; actor: Actor; signInProofAt: number },
): Promise<{ ok: true; pair: TokenPair } | ActionFailure | ActionLimited> {
  const check = await locateFlow(ctx, input.proof, input.user, isChangeEmail)
  if (!check.ok) return check
  const { link } = check
  const email = await checkEmailAddress(input.newEmail, { ...ctx.config.emailChecks }, (msg, fields) => ctx.log.warn(msg, fields))
  if (!email.ok) return fail('email_invalid', email.reason)
  const code = await attemptProof(ctx, link, input.proof, { userId: input.user.userId, actor: input.actor })
  if (!code.ok) return code.code === 'rate_limited' ? code : codeFailure(code)
  const now = new Date(ctx.now())
  type Done = { kind: 'done'; oldEmail: string; revoked: string[] } | { kind: 'used' } | { kind: 'same' } | { kind: 'gone' }
  let done: Done
  try {
    done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
      const user = await trx.selectFrom('users').select(['email']).where('id', '=', input.user.userId).forUpdate().executeTakeFirst()
      if (!user) return { kind: 'gone' }
      if (user.email.toLowerCase() === email.email.toLowerCase()) return { kind: 'same' }
      if (!(await consumeLink(trx, ctx, code.link))) return { kind: 'used' }
      // a unique violation here aborts the whole transaction: link, address and sessions stay as they were;
      // the code went to the old address, so the new one is not verified yet
      await trx.updateTable('users').set({ email: email.email, email_verified: false, updated_at: now }).where('id', '=', input.user.userId).execute()
      const revoked = await revokeFamilies(trx, { userId: input.user.userId, exceptFamilyId: input.user.sessionId }, 'email_changed', now, ctx.sessionHooks)
      await recordSecurityEvent(trx, {
        type: 'email_changed',
        userId: input.user.userId,
        visitorRowId: input.user.visitorRowId,
        ipAddress: input.actor.ipAddress,
        details: { from: maskEmail(user.email), to: maskEmail(email.email), revokedSessions: revoked.length },
        at: now,
      })
      return { kind: 'done', oldEmail: user.email, revoked }
    })
  } catch (error) {
    if (isUniqueViolation(error)) return fail('email_in_use')
    throw error
  }
  if (done.kind === 'used') return linkFailure('used')
  if (done.kind === 'same') return fail('email_unchanged')
  if (done.kind === 'gone') return fail('relogin_required')
  ctx.log.info('email changed', { userId: input.user.userId, revokedSessions: done.revoked.length })
  // The change is committed: mails that cannot be delivered are logged, not a failed request.
  // The old address gets the notice with an undo link; the new one a link to verify it.
  // undoing the change removes what was set up since this session's sign-in proof: a stolen
  // session may have added a factor before it moved the address (undo-email-change.ts)
  const setUpSince = new Date(Math.min(input.signInProofAt, now.getTime()))
  const change = { userId: input.user.userId, oldEmail: done.oldEmail, newEmail: email.email, ipAddress: input.actor.ipAddress, at: now, setUpSince }
  sendEmailChangedNotice(ctx, change).catch((error: Error) =>
    ctx.log.error('email-change notice not delivered', { userId: input.user.userId, error: error.message }),
  )
  sendVerificationMailLater(ctx, { id: input.user.userId, email: email.email }, input.user.visitorRowId)
  const pair = await reissueSession(ctx, input.user, input.actor)
  if (!pair) return fail('relogin_required')
  return { ok: true, pair }
}
