/**
 * The browser's time zone for the IAM's mails (iam/contract/time-zones.ts): written to the
 * `time_zone` cookie on every page load, which the BFF forwards as X-Time-Zone on its calls
 * (server/utils/bff/iam-call.ts), so a sign-up, a sign-in or a signed-out request (forgot password)
 * names it without a field of its own in each form. A year, SameSite=Lax and path / like the
 * `locale` cookie; not HttpOnly, as the page writes it; no credential, and checked by the gateway
 * and again by the IAM before anything reads it.
 */
import { TIME_ZONE_COOKIE } from '../iam/contract/time-zones'

const YEAR_S = 365 * 24 * 60 * 60

export default defineNuxtPlugin(() => {
  let zone: string | undefined
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  } catch {
    return
  }
  if (!zone) return
  const value = encodeURIComponent(zone)
  if (document.cookie.split('; ').includes(`${TIME_ZONE_COOKIE}=${value}`)) return
  const secure = location.protocol === 'https:' ? '; Secure' : ''
  document.cookie = `${TIME_ZONE_COOKIE}=${value}; Path=/; Max-Age=${YEAR_S}; SameSite=Lax${secure}`
})
