/**
 * Adaptive MFA verification (POST /auth/verify-mfa): the link must
 * be an MFA link of this device, the code right; then, in order, the link is consumed (one
 * winner), the anomaly resolved, the device bound to the session and a new pair issued.
 */
import type { IamContext } from '../../context'
import { completeMfa } from './complete-adaptive'
import type { LinkParams } from './link-token'
import { findMailRecipient, maskEmail } from './flows'
import { attemptCode, checkLink, consumeLink } from './links'
import { MFA_PURPOSE } from './purposes'
import { findLink, findLiveLink, type LinkWithCode } from './repository'
import { hashRefreshToken, isRefreshTokenShape } from '../sessions/refresh-token'
import { findSessionByTokenHash } from '../sessions/sessions-repo'
import { recordSecurityEvent } from '../security-events/repository'
import type { TokenPair } from '../sessions/session-service'
import { codeFailure, fail, linkFailure, type ActionFailure } from './action-failures'
import type { Actor } from '../security-events/repository'
import { previewLinkPurpose } from './link-checks'

const isMfa = (purpose: string) => purpose === MFA_PURPOSE

export const previewMfaLink = (ctx: IamContext, params: LinkParams) => previewLinkPurpose(ctx, params, isMfa)

type MfaActor = Actor & { visitorPublicId: string | null }

export async function verifyAdaptiveMfa(
  ctx: IamContext,
  input: { params: LinkParams; code: string; actor: MfaActor },
): Promise<{ ok: true; pair: TokenPair } | ActionFailure> {
  const check = await checkLink(ctx, input.params, isMfa)
  if (!check.ok) return linkFailure(check.code)
  return finishWithCode(ctx, check.link, input.code, input.actor)
}

/** The live MFA link of the session behind `refreshToken` (its cookie), when the session is live and one waits. */
async function waitingLink(ctx: IamContext, refreshToken: string | null): Promise<LinkWithCode | null> {
  if (!refreshToken || !isRefreshTokenShape(refreshToken)) return null
  const session = await findSessionByTokenHash(ctx.db, hashRefreshToken(refreshToken))
  if (!session || session.family.revoked_at) return null
  const live = await findLiveLink(ctx.db, { userId: session.family.user_id, familyId: session.family.id, purpose: MFA_PURPOSE, now: new Date(ctx.now()) })
  return live && (await findLink(ctx.db, live.jti))
}

/**
 * The challenge waiting on this browser's session, for the page that meets it: the masked address
 * the code went to, why it was asked (the anomaly's name; the page says it in words) and until when.
 * Null when none waits (no session, a revoked one, or no live code).
 */
export async function waitingMfa(
  ctx: IamContext,
  refreshToken: string | null,
): Promise<{ sentTo: string; because: string; expiresAt: string } | null> {
  const link = await waitingLink(ctx, refreshToken)
  if (!link) return null
  const recipient = await findMailRecipient(ctx, link.user_id)
  if (!recipient) return null
  const because = typeof link.data['anomaly'] === 'string' ? link.data['anomaly'] : 'UNUSUAL_SIGN_IN'
  return { sentTo: maskEmail(recipient.email), because, expiresAt: (link.code?.expires_at ?? link.expires_at).toISOString() }
}

/**
 * The emailed code typed on the page where the challenge met the person (the sign-in page, an
 * app's sign-in through the provider, the account page), without the link: the session cookie
 * names the challenge, the device must be the one it was sent for, and the code proves the
 * mailbox as the link would. Attempts count against the same link, so both ways share one budget.
 */
export async function verifyAdaptiveMfaCode(
  ctx: IamContext,
  input: { refreshToken: string | null; code: string; actor: MfaActor },
): Promise<{ ok: true; pair: TokenPair } | ActionFailure> {
  const link = await waitingLink(ctx, input.refreshToken)
  if (!link) return linkFailure('invalid')
  return finishWithCode(ctx, link, input.code, input.actor)
}

/** A checked MFA link and the code sent with it: the code attempt, then consume, resolve, bind and issue. */
async function finishWithCode(ctx: IamContext, link: LinkWithCode, submitted: string, actor: MfaActor): Promise<{ ok: true; pair: TokenPair } | ActionFailure> {
  // The device that asks must be the device the challenge was sent for: it is the one bound next.
  if (actor.visitorRowId === null || actor.visitorPublicId !== link.visitor || !link.family_id) {
    return linkFailure('mismatch')
  }
  const code = await attemptCode(ctx, link, submitted)
  if (!code.ok) {
    await recordSecurityEvent(ctx.db, {
      type: 'mfa_failed',
      userId: link.user_id,
      visitorRowId: actor.visitorRowId,
      ipAddress: actor.ipAddress,
      details: { familyId: link.family_id, reason: code.code },
      at: new Date(ctx.now()),
    })
    return codeFailure(code)
  }
  const won = await ctx.db.transaction().execute((trx) => consumeLink(trx, ctx, link))
  if (!won) return linkFailure('used')
  const pair = await completeMfa(ctx, {
    familyId: link.family_id,
    visitorRowId: actor.visitorRowId,
    ipAddress: actor.ipAddress,
    fingerprint: actor.fingerprint,
  })
  if (!pair) return fail('relogin_required')
  await recordSecurityEvent(ctx.db, {
    type: 'mfa_verified',
    userId: link.user_id,
    visitorRowId: actor.visitorRowId,
    ipAddress: actor.ipAddress,
    details: { familyId: link.family_id, anomaly: link.data['anomaly'] ?? null },
    at: new Date(ctx.now()),
  })
  return { ok: true, pair }
}
