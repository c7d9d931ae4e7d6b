import { defineEventHandler } from 'h3'
import { ROUTES } from '../contract/routes'
import { useIam } from '../context'
import { signup } from '../features/users/signup-service'
import { authFail, rejectXss, sendTokens } from '../http/auth'
import { enforceRateLimit } from '../http/rate-limit'
import { getClientIp, getJsonBody } from '../http/request'
import { withWarnings } from '../http/respond'
import { readRouteInput } from '../http/route-input'
import { requireSignInDevice, signInDevice } from '../http/sign-in'

/** POST /signup: 201 tokens (and `warnings` when the breach check was skipped); 400 validation; 403 XSS/banned; 409 email taken; 429. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const visitor = await requireSignInDevice(event)
  const raw = getJsonBody<Record<string, unknown>>(event)
  const { password: _p, confirmedPassword: _c, ...freeText } = raw
  await rejectXss(event, freeText)
  await enforceRateLimit(ctx, 'signup', { ip: ipAddress })
  const body = readRouteInput(event, ROUTES.signup, 'body')
  if (body.password !== body.confirmedPassword) {
    return authFail(400, 'Passwords do not match', { fields: { confirmedPassword: 'Passwords do not match' } })
  }
  const result = await signup(ctx, {
    email: body.email,
    password: body.password,
    name: body.name,
    remember: body.rememberUser === 'on',
    ...signInDevice(event, visitor),
  })
  if (!result.ok) {
    if (result.code === 'email_taken') return authFail(409, 'Email already registered')
    if (result.code === 'email_invalid') return authFail(400, 'Validation failed', { fields: { email: result.reason } })
    if (result.code === 'breach_check_unavailable') return authFail(503, 'Service unavailable', { fields: { password: result.reason } })
    return authFail(400, 'Validation failed', { fields: { password: result.reason } })
  }
  return withWarnings(sendTokens(event, ctx, result.pair, 201), result.warnings)
})
