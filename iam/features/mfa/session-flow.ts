/**
 * What the flows of a signed-in session share (custom MFA in custom.ts, its proof in
 * flow-proof.ts, the email change in account-actions/email-change.ts, re-authentication in
 * reauthenticate.ts): the session user they are bound to, the admission of a mail the user makes
 * the IAM send, and the check that a link belongs to this user, session and device.
 */
import type { IamContext } from '../../context'
import type { LinkParams } from './link-token'
import { checkLink, previewLink } from './links'
import type { LinkWithCode } from './repository'
import { useLimiter } from '../rate-limits/registry'
import { linkFailure, type ActionFailure, type ActionLimited } from './action-failures'

/** The signed-in caller (http/auth.ts RequestUser, reduced to what flows need). */
export interface SessionUser {
  userId: number
  sessionId: string
  visitor_id: string
  visitorRowId: number
}

/**
 * A mail a signed-in user makes the IAM send with a link or code: per user (emails limiter) and
 * per IP (links limiter); keys never an email alone. Null when admitted.
 */
export async function admitFlowMail(ctx: IamContext, input: { userId: number; ipAddress: string }): Promise<ActionLimited | null> {
  for (const consume of [
    () => useLimiter(ctx, 'emails').consume({ userId: input.userId }),
    () => useLimiter(ctx, 'links').consume({ ip: input.ipAddress, on: 'ip' }),
  ]) {
    const decision = await consume()
    if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  }
  return null
}

/** A custom link of this user's session and device, for `accept`ed purposes. */
export async function checkSessionLink(
  ctx: IamContext,
  params: LinkParams,
  user: SessionUser,
  accept: (purpose: string) => boolean,
  mode: 'preview' | 'check',
): Promise<{ ok: true; link: LinkWithCode } | ActionFailure> {
  const check = mode === 'preview' ? await previewLink(ctx, params, accept) : await checkLink(ctx, params, accept)
  if (!check.ok) return linkFailure(check.code)
  const { link } = check
  if (link.user_id !== user.userId || link.family_id !== user.sessionId || link.visitor !== user.visitor_id) return linkFailure('mismatch')
  return { ok: true, link }
}
