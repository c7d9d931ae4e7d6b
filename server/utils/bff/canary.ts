/**
 * The device cookie. The IAM requires `canary_id` on signup, login and OAuth (400 without it) and
 * issues it from `GET /check`, so before the first of those the BFF asks the IAM
 * for one and forwards its Set-Cookie to the browser.
 */
import type { H3Event } from 'h3'
import { currentCookie, forwardSetCookies, isCookieValue } from './cookies'
import { callIamRoute } from './iam-call'
import { bffFail, IAM_UNAVAILABLE_MESSAGE } from './respond'

/** The browser's canary_id, obtained from the IAM's /check when the browser has none yet. */
export async function ensureDeviceCookie(event: H3Event): Promise<string | undefined> {
  const existing = currentCookie(event, 'canary_id')
  if (existing && isCookieValue(existing)) return existing
  const res = await callIamRoute(event, 'check', {})
  if (res.status === 403) bffFail(403, { ok: false, error: 'This device has been blocked. Contact support if you think this is a mistake.', code: 'device_banned' })
  // without a device cookie the call that follows would be refused as a bad request: say why instead
  if (res.status === 503) bffFail(503, { ok: false, error: IAM_UNAVAILABLE_MESSAGE, code: 'service_unavailable' }, { 'retry-after': res.headers.get('retry-after') ?? '5' })
  forwardSetCookies(event, res.setCookies)
  return currentCookie(event, 'canary_id')
}
