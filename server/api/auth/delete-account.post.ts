/**
 * POST /api/auth/delete-account (signed in, no body) -> IAM POST /auth/delete-account: mails the
 * confirmation link (202). A 403 `reauthenticate: true` is relayed as it is: the page proves the
 * sign-in again and repeats; a 409 `last_owner` names the organizations to hand on first.
 *
 * The IAM's 202 means two things on this route: the route's own "link mailed" (`ok: true` with
 * `data.sentTo`), and full authentication's "an anomaly waits for the emailed code" (`mfa: true`),
 * which `relay` turns into the pages' MFA notice. Only the first is passed on as it came.
 */
import { setResponseStatus } from 'h3'
import { forwardSetCookies } from '../../utils/bff/cookies'
import { defineBffHandler, relay, stripTokens } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

const isMailed = (body: unknown): boolean => {
  const data = body && typeof body === 'object' ? (body as { ok?: unknown; data?: { sentTo?: unknown } }) : undefined
  return data?.ok === true && typeof data.data?.sentTo === 'string'
}

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'deleteAccount', {})
  if (res.status !== 202 || !isMailed(res.body)) return relay(event, res)
  forwardSetCookies(event, res.setCookies)
  setResponseStatus(event, 202)
  return stripTokens(res.body)
})
