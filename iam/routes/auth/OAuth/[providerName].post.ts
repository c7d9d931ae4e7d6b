import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { useIam } from '../../../context'
import { findProvider, readProfile } from '../../../features/oauth-login/provider-profile'
import { oauthLogin } from '../../../features/oauth-login/oauth-login-service'
import { authFail, rejectXss, sendTokens } from '../../../http/auth'
import { enforceRateLimit } from '../../../http/rate-limit'
import { getClientIp } from '../../../http/request'
import { readRouteInput } from '../../../http/route-input'
import { requireSignInDevice, signInDevice } from '../../../http/sign-in'
import { notFound } from '../../../http/respond'

/** POST /auth/OAuth/:providerName: 201 tokens; 200 `{ secondFactor }` for an account with one (no tokens); 400 schema; 403 XSS/banned; 404 provider; 409 email; 429. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const { providerName } = readRouteInput(event, ROUTES.oauthLogin, 'params', notFound)
  const provider = findProvider(ctx.config.providers, providerName)
  if (!provider) return notFound()
  const ipAddress = getClientIp(event)
  const visitor = await requireSignInDevice(event)
  const body = readRouteInput(event, ROUTES.oauthLogin, 'body')
  await rejectXss(event, body)
  await enforceRateLimit(ctx, 'oauth', { ip: ipAddress })
  const profile = readProfile(provider, body)
  if (!profile.ok) return authFail(400, 'Invalid provider profile', { fields: profile.fields })
  const result = await oauthLogin(ctx, {
    provider: provider.name,
    profile: profile.profile,
    ...signInDevice(event, visitor),
  })
  if (!result.ok) {
    if (result.code === 'invalid_email') return authFail(400, 'Invalid provider profile', { fields: { email: 'Invalid email address' } })
    if (result.code === 'banned') return authFail(403, 'Account suspended', { banned: true })
    return authFail(409, 'Email already registered')
  }
  // an account with a second factor: the provider vouched for who it is, the second factor still has to
  if ('secondFactor' in result) return { ok: true as const, date: new Date().toISOString(), secondFactor: result.secondFactor }
  return sendTokens(event, ctx, result.pair, 201)
})
