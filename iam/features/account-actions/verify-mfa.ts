/**
 * Adaptive MFA verification (spec POST /auth/verify-mfa): the link must
 * be an MFA link of this device, the code right; then, in order, the link is consumed (one
 * winner), the anomaly resolved, the device bound to the session and a new pair issued.
 */
import type { IamContext } from '../../context'
import { completeMfa } from '../anomalies/complete-mfa'
import type { LinkParams } from '../mfa/link-token'
import { attemptCode, checkLink, consumeLink } from '../mfa/links'
import { MFA_PURPOSE } from '../mfa/purposes'
import { recordSecurityEvent } from '../security-events/repository'
import type { TokenPair } from '../sessions/session-service'
import { codeFailure, fail, linkFailure, type ActionFailure, type Actor } from './outcomes'
import { previewLinkPurpose } from './link-preview'

const isMfa = (purpose: string) => purpose === MFA_PURPOSE

export const previewMfaLink = (ctx: IamContext, params: LinkParams) => previewLinkPurpose(ctx, params, isMfa)

export async function verifyAdaptiveMfa(
  ctx: IamContext,
  input: { params: LinkParams; code: string; actor: Actor & { visitorPublicId: string | null } },
): Promise<{ ok: true; pair: TokenPair } | ActionFailure> {
  const check = await checkLink(ctx, input.params, isMfa)
  if (!check.ok) return linkFailure(check.code)
  const { link } = check
  // The device that asks must be the device the challenge was sent for: it is the one bound next.
  if (input.actor.visitorRowId === null || input.actor.visitorPublicId !== link.visitor || !link.family_id) {
    return linkFailure('mismatch')
  }
  const code = await attemptCode(ctx, link, input.code)
  if (!code.ok) {
    await recordSecurityEvent(ctx.db, {
      type: 'mfa_failed',
      userId: link.user_id,
      visitorRowId: input.actor.visitorRowId,
      ipAddress: input.actor.ipAddress,
      details: { familyId: link.family_id, reason: code.code },
      at: new Date(ctx.now()),
    })
    return codeFailure(code)
  }
  const won = await ctx.db.transaction().execute((trx) => consumeLink(trx, ctx, link))
  if (!won) return linkFailure('used')
  const pair = await completeMfa(ctx, {
    familyId: link.family_id,
    visitorRowId: input.actor.visitorRowId,
    ipAddress: input.actor.ipAddress,
    fingerprint: input.actor.fingerprint,
  })
  if (!pair) return fail('relogin_required')
  await recordSecurityEvent(ctx.db, {
    type: 'mfa_verified',
    userId: link.user_id,
    visitorRowId: input.actor.visitorRowId,
    ipAddress: input.actor.ipAddress,
    details: { familyId: link.family_id, anomaly: link.data['anomaly'] ?? null },
    at: new Date(ctx.now()),
  })
  return { ok: true, pair }
}
