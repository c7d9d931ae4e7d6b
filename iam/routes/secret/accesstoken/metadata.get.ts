import { isLocale } from '../../../contract/locales'
import { gravatarOf } from '../../../features/users/profile-picture'
import { ROUTES } from '../../../contract/routes'
import { authorizedAccount } from '../../../http/authorized-account'
import { defineRoute } from '../../../http/route'

/**
 * GET /secret/accesstoken/metadata (full authentication, cookie-only): the decoded access token and
 * when to rotate it. refreshThreshold = 25% of the access TTL; shouldRotate once less remains.
 */
export default defineRoute(ROUTES.accessTokenMetadata, [], (req) => {
  const { ctx, user, account } = authorizedAccount(req)
  const now = ctx.now()
  const expMs = (user.payload.exp ?? 0) * 1000
  const msUntilExp = Math.max(0, expMs - now)
  const refreshThreshold = Math.round(ctx.config.jwt.access_tokens.expiresInMs * 0.25)
  return {
    authorized: true,
    userId: user.userId,
    // further fields (clients ignore members they do not know): what an account page shows without another call
    email: account.email,
    // false until the address's verification link is used (signup, email change)
    emailVerified: account.email_verified,
    name: account.name,
    // the language the owner chose (POST /auth/profile); null until chosen
    locale: isLocale(account.locale) ? account.locale : null,
    // the zone the account's mails name their moments in (users.time_zone); null until a browser or the owner named one
    timeZone: account.time_zone,
    // the picture the header draws (docs/accounts.md "Profile picture"): its source, and Gravatar's address when chosen
    picture: { source: account.picture_source, gravatarUrl: gravatarOf(account) },
    sessionId: user.sessionId,
    payload: user.payload,
    roles: user.roles,
    issuedAt: new Date((user.payload.iat ?? 0) * 1000).toISOString(),
    expiresAt: new Date(expMs).toISOString(),
    msUntilExp,
    refreshThreshold,
    shouldRotate: msUntilExp < refreshThreshold,
  }
})
