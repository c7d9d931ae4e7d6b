/** The statuses and bodies of the OpenID interaction routes (routes/auth/oidc). */
import type { InteractionOutcome } from '../features/oidc/interactions'
import { authFail } from './auth'
import { REAUTHENTICATE_ERROR } from './reauthenticate'
import { okEnvelope } from './respond'

export const INTERACTION_GONE = 'This sign-in request has expired, was already finished, or was started in another browser: go back to the app and start again'

export function interactionGone(): never {
  return authFail(404, 'interaction_not_found', INTERACTION_GONE)
}

export function interactionOutcome(outcome: InteractionOutcome) {
  if (outcome.ok) return okEnvelope({ redirectTo: outcome.redirectTo })
  switch (outcome.code) {
    case 'not_found':
      return interactionGone()
    case 'wrong_step':
      return authFail(400, 'interaction_wrong_step', 'This sign-in request is not at that step: reload the page')
    case 'reauthenticate':
      return authFail(403, 'reauthentication_required', REAUTHENTICATE_ERROR, { reauthenticate: true })
    case 'other_account':
      return authFail(403, 'interaction_other_account', 'You are signed in as another account than the one this request is for: sign out, then start again from the app')
  }
}
