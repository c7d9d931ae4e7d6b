import { isLocale, SUPPORTED_LOCALES } from '../../contract/locales'
import { ROUTES } from '../../contract/routes'
import { updateProfile } from '../../features/users/profile'
import { authFail } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'

const UNSUPPORTED = `One of ${SUPPORTED_LOCALES.join(', ')}, or null`

/**
 * POST /auth/profile `{ name?, locale? }` (full authentication; name required without locale): 200
 * `{ name, locale }`; 400 validation, or `locale_unsupported`; 401; 403 XSS (device banned).
 */
export default defineRoute(ROUTES.updateProfile, [], async ({ ctx, user, actor, body }) => {
  const { locale } = body
  if (locale !== undefined && locale !== null && !isLocale(locale)) {
    return authFail(400, 'locale_unsupported', 'This language is not supported', { fields: { locale: UNSUPPORTED } })
  }
  return okEnvelope(await updateProfile(ctx, { userId: user.userId, actor, name: body.name, locale }))
})
