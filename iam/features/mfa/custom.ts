/**
 * Custom MFA flows protecting sensitive actions (POST /custom/mfa/:reason, GET/POST
 * /auth/verify-custom-mfa). A flow is bound to the signed-in user, the session and the
 * device: its link works only inside that session. One live code per session and reason; a new
 * start of the same reason replaces the old link, other reasons are left alone.
 */
import { chooseLocale, type Locale } from '../../contract/locales'
import type { IamContext } from '../../context'
import { customActionMail } from '../mail/templates'
import { codeMailFields, findMailRecipient, maskEmail, startFlow } from './flows'
import type { LinkParams } from './link-token'
import { consumeLink } from './links'
import { isGenericCustomReason } from './purposes'
import { recordSecurityEvent } from '../security-events/repository'
import type { TokenPair } from '../sessions/session-service'
import { reissueSession } from './reissue-session'
import { attemptProof, locateFlow, type FlowProof } from './flow-proof'
import { admitFlowMail, checkSessionLink, type SessionUser } from './session-flow'
import { codeFailure, fail, linkFailure, type ActionFailure, type ActionLimited } from './action-failures'
import type { Actor } from '../security-events/repository'

export type StartCustomResult =
  | { ok: true; reason: string; expiresAt: string; sentTo: string }
  | ActionLimited
  | ActionFailure

export async function startCustomMfa(
  ctx: IamContext,
  input: { user: SessionUser; reason: string; note?: string; ipAddress: string; requestLocale?: Locale },
): Promise<StartCustomResult> {
  const limited = await admitFlowMail(ctx, { userId: input.user.userId, ipAddress: input.ipAddress })
  if (limited) return limited
  const user = await findMailRecipient(ctx, input.user.userId)
  if (!user) return fail('not_authenticated')
  const { siteName } = ctx.config.email
  const result = await startFlow(ctx, {
    purpose: input.reason,
    path: 'custom',
    userId: input.user.userId,
    familyId: input.user.sessionId,
    visitor: input.user.visitor_id,
    data: input.note ? { note: input.note } : {},
    withCode: true,
    onLive: 'replace',
    mail: (issued) => ({
      to: user.email,
      links: [issued.url],
      content: customActionMail({
        siteName,
        locale: chooseLocale(user.locale, input.requestLocale),
        ...codeMailFields(ctx, issued),
        reason: input.reason,
        note: input.note,
      }),
    }),
  })
  if (!result.ok) {
    return result.code === 'mail_failed' ? fail('confirmation_mail_failed') : fail('relogin_required')
  }
  const expiresAt = result.sent ? result.issued.expiresAt : result.expiresAt
  await recordSecurityEvent(ctx.db, {
    type: 'custom_mfa_started',
    userId: input.user.userId,
    visitorRowId: input.user.visitorRowId,
    ipAddress: input.ipAddress,
    details: { reason: input.reason },
    at: new Date(ctx.now()),
  })
  return { ok: true, reason: input.reason, expiresAt: expiresAt.toISOString(), sentTo: maskEmail(user.email) }
}

export async function previewCustomLink(ctx: IamContext, params: LinkParams, user: SessionUser) {
  const check = await checkSessionLink(ctx, params, user, isGenericCustomReason, 'preview')
  if (!check.ok) return check
  const { link } = check
  const note = typeof link.data['note'] === 'string' ? link.data['note'] : undefined
  return { ok: true as const, reason: link.purpose, expiresAt: link.expires_at.toISOString(), ...(note ? { note } : {}) }
}

/** Code attempt, then consumption (one winner), then a new pair for the session. */
export async function verifyCustomMfa(
  ctx: IamContext,
  input: { proof: FlowProof; user: SessionUser; actor: Actor },
): Promise<{ ok: true; pair: TokenPair; reason: string } | ActionFailure | ActionLimited> {
  const check = await locateFlow(ctx, input.proof, input.user, isGenericCustomReason)
  if (!check.ok) return check
  const { link } = check
  const code = await attemptProof(ctx, link, input.proof, { userId: input.user.userId, actor: input.actor })
  if (!code.ok) return code.code === 'rate_limited' ? code : codeFailure(code)
  const won = await ctx.db.transaction().execute((trx) => consumeLink(trx, ctx, code.link))
  if (!won) return linkFailure('used')
  const pair = await reissueSession(ctx, input.user, input.actor)
  if (!pair) return fail('relogin_required')
  await recordSecurityEvent(ctx.db, {
    type: 'custom_mfa_verified',
    userId: input.user.userId,
    visitorRowId: input.user.visitorRowId,
    ipAddress: input.actor.ipAddress,
    details: { reason: link.purpose },
    at: new Date(ctx.now()),
  })
  return { ok: true, pair, reason: link.purpose }
}
