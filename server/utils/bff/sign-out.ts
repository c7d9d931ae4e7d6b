/**
 * Ending the browser's session on this site: the IAM revokes the session (by its refresh cookie),
 * and the browser's cookies are cleared whatever the IAM answers, since signing out must always
 * work from the person's side. The OpenID Provider's browser session (its `_session` cookie under
 * /oidc) ends with it, so the next app that asks for a sign-in finds nobody signed in.
 */
import { appendResponseHeader, type H3Event } from 'h3'
import { clearSessionCookies, currentCookie, forwardSetCookies } from './cookies'
import { callIamRoute } from './iam-call'
import { endKeptAdminSession } from './impersonation'
import { BffReply } from './respond'

const PROVIDER_SESSION_COOKIES = ['_session', '_session.sig', '_session.legacy', '_session.legacy.sig']

export async function endBffSession(event: H3Event): Promise<void> {
  if (currentCookie(event, 'session')) {
    try {
      const res = await callIamRoute(event, 'logout', {
        // The IAM revokes by the refresh cookie; requireAccessToken checks presence, not validity
        // (iam/http/auth.ts), so an expired access cookie must not block the sign-out.
        bearer: currentCookie(event, 'access') ?? 'expired',
        cookies: ['session', 'canary_id'],
      })
      forwardSetCookies(event, res.setCookies)
    } catch (error) {
      if (!(error instanceof BffReply)) throw error
    }
  }
  // signed in on someone's behalf: the administrator's own session, kept aside, ends as well
  await endKeptAdminSession(event)
  clearSessionCookies(event)
  for (const name of PROVIDER_SESSION_COOKIES) appendResponseHeader(event, 'set-cookie', `${name}=; Path=/oidc; Max-Age=0; HttpOnly; SameSite=Lax`)
}
