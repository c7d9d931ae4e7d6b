/**
 * The gateway's side of the OpenID Provider's sign-in and consent page (/interaction/:uid): the
 * browser's `_interaction` cookie exists only under that path (the provider sets it so), so these
 * answers live beside the page; each forwards the cookie, and the signed-in session where the
 * step needs one, to the IAM (iam/features/oidc/interactions.ts).
 */
import { getRouterParam, type H3Event } from 'h3'
import type { IamResponse } from '../../../iam/client/iam-client'
import type { ForwardedCookie } from './allow-list'
import { isFormPost } from './forms'
import { iamFailureCode } from './iam-route'
import { bffFail, bffRedirect, relay } from './respond'

export const INTERACTION_COOKIES: readonly ForwardedCookie[] = ['_interaction', '_interaction.sig']

/** The IAM routes that end a step of the page: their answers are what interactionReply turns into the page's. */
export type InteractionStep = 'oidcInteractionLogin' | 'oidcInteractionConsent' | 'oidcInteractionAbort'

/** The uid of the path, checked as the IAM checks it (a bad one never leaves the gateway). */
export function interactionUid(event: H3Event): string {
  const uid = getRouterParam(event, 'uid') ?? ''
  if (!/^[A-Za-z0-9_-]{10,64}$/.test(uid)) bffFail(404, { ok: false, error: 'This sign-in request does not exist. Go back to the app and start again.', code: 'interaction_not_found' })
  return uid
}

/**
 * The answer of a step: JSON `{ ok, data: { redirectTo } }` for the page's script; for a form post
 * without JavaScript, a 303 to where the browser goes next, or back to the page with the reason.
 */
export function interactionReply(event: H3Event, uid: string, id: InteractionStep, res: IamResponse<unknown>): Record<string, unknown> {
  const redirectTo = (res.body as { data?: { redirectTo?: unknown } } | null)?.data?.redirectTo
  if (!isFormPost(event)) return relay(event, res)
  if (res.status === 200 && typeof redirectTo === 'string') bffRedirect(redirectTo, true)
  const code = iamFailureCode(id, res.body)
  const shown = code === 'reauthentication_required' ? 'reauthenticate' : code === 'interaction_not_found' ? 'gone' : 'failed'
  bffRedirect(`/interaction/${uid}?error=${shown}`, false)
}
