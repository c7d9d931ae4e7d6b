import { ROUTES } from '../../../contract/routes'
import { findProvider, readProfile } from '../../../features/oauth-login/provider-profile'
import { oauthLogin } from '../../../features/oauth-login/oauth-login-service'
import { authFail, rejectXss, sendTokens } from '../../../http/auth'
import { notFound } from '../../../http/respond'
import { body, check, defineRoute, limit, params, signInGate } from '../../../http/route'
import { signInDevice } from '../../../http/sign-in'

/** The configured provider the path names; an unknown one is 404, as an unknown route. */
const providerOf = (req: { ctx: { config: { providers: Parameters<typeof findProvider>[0] } }; params: unknown }) =>
  findProvider(req.ctx.config.providers, (req.params as { providerName: string }).providerName)

/** POST /auth/OAuth/:providerName: 201 tokens; 200 `{ secondFactor }` for an account with one (no tokens); 400 schema; 403 XSS/banned; 404 provider; 409 email; 429. */
export default defineRoute(
  ROUTES.oauthLogin,
  [
    params(notFound),
    check((req) => void (providerOf(req) ?? notFound())),
    signInGate,
    // the profile is checked for markup as parsed: what the schema keeps is what gets stored
    body({ markupCheck: false }),
    check((req) => rejectXss(req.event, req.body)),
    limit('oauth', ({ ip }) => ({ ip })),
  ],
  async (req) => {
    const { event, ctx, visitor, body } = req
    const provider = providerOf(req)!
    const profile = readProfile(provider, body)
    if (!profile.ok) return authFail(400, 'oauth_profile_invalid', 'Invalid provider profile', { fields: profile.fields })
    const result = await oauthLogin(ctx, {
      provider: provider.name,
      profile: profile.profile,
      ...signInDevice(event, visitor!),
    })
    if (!result.ok) {
      if (result.code === 'invalid_email') return authFail(400, 'oauth_profile_invalid', 'Invalid provider profile', { fields: { email: 'Invalid email address' } })
      if (result.code === 'banned') return authFail(403, 'account_banned', 'Account suspended', { banned: true })
      return authFail(409, 'email_taken', 'Email already registered')
    }
    // an account with a second factor: the provider vouched for who it is, the second factor still has to
    if ('secondFactor' in result) return { ok: true as const, date: new Date().toISOString(), secondFactor: result.secondFactor }
    return sendTokens(event, ctx, result.pair, 201)
  },
)
