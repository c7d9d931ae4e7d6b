/**
 * Custom MFA and email change both end by handing the signed-in session a new token pair, bound to
 * the device and network that completed the code: one mapping from the session user and actor.
 */
import type { IamContext } from '../../context'
import { reissueAfterMfa, type TokenPair } from '../sessions/session-service'
import type { SessionUser } from './session-flow'
import type { Actor } from '../security-events/repository'

/** The new pair, or null when the session can no longer be renewed (the caller answers re-login). */
export function reissueSession(ctx: IamContext, user: SessionUser, actor: Actor): Promise<TokenPair | null> {
  return reissueAfterMfa(ctx, {
    familyId: user.sessionId,
    visitorRowId: user.visitorRowId,
    ipAddress: actor.ipAddress,
    fingerprint: actor.fingerprint,
  })
}
