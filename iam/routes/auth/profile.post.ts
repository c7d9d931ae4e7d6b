import { isLocale, SUPPORTED_LOCALES } from '../../contract/locales'
import { ROUTES } from '../../contract/routes'
import { readTimeZone } from '../../contract/time-zones'
import { updateProfile } from '../../features/users/profile'
import { authFail } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'

const UNSUPPORTED = `One of ${SUPPORTED_LOCALES.join(', ')}, or null`
const ZONE_UNSUPPORTED = 'An IANA time zone name such as Europe/Berlin or UTC, or null'

/**
 * POST /auth/profile `{ name?, locale?, timeZone? }` (full authentication; at least one of them): 200
 * `{ name, locale, timeZone }`; 400 validation, `locale_unsupported` or `time_zone_unsupported`
 * (nothing is stored then); 401; 403 XSS (device banned).
 */
export default defineRoute(ROUTES.updateProfile, [], async ({ ctx, user, actor, body }) => {
  const { locale } = body
  if (locale !== undefined && locale !== null && !isLocale(locale)) {
    return authFail(400, 'locale_unsupported', 'This language is not supported', { fields: { locale: UNSUPPORTED } })
  }
  // the zone the runtime's Intl knows, as for the browser's zone at sign-in: Intl.supportedValuesOf
  // alone would refuse UTC and the current names of renamed zones (Europe/Kyiv) browsers report
  let timeZone: string | null | undefined = body.timeZone
  if (timeZone !== undefined && timeZone !== null) {
    timeZone = readTimeZone(timeZone)
    if (timeZone === null) return authFail(400, 'time_zone_unsupported', 'This time zone is not known', { fields: { timeZone: ZONE_UNSUPPORTED } })
  }
  return okEnvelope(await updateProfile(ctx, { userId: user.userId, actor, name: body.name, locale, timeZone }))
})
