import { defineEventHandler } from 'h3'
import { ROUTES } from '../contract/routes'
import { useIam } from '../context'
import { signup } from '../features/users/signup-service'
import { getAuthLimiters } from '../features/users/auth-limiters'
import { authFail, rejectXss, requireDevice, sendTokens } from '../http/auth'
import { enforceRateLimit } from '../http/rate-limit'
import { getClientIp, getJsonBody } from '../http/request'
import { readRouteInput } from '../http/route-input'
import { limiterIpKey } from '../lib/ip'

/** POST /signup: 201 tokens; 400 validation; 403 XSS/banned; 409 email taken; 429. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const visitor = await requireDevice(event)
  const raw = getJsonBody<Record<string, unknown>>(event)
  const { password: _p, confirmedPassword: _c, ...freeText } = raw
  await rejectXss(event, freeText)
  await enforceRateLimit(getAuthLimiters(ctx).signup, limiterIpKey(ipAddress))
  const body = readRouteInput(event, ROUTES.signup, 'body')
  if (body.password !== body.confirmedPassword) {
    return authFail(400, 'Passwords do not match', { fields: { confirmedPassword: 'Passwords do not match' } })
  }
  const result = await signup(ctx, {
    email: body.email,
    password: body.password,
    name: body.name,
    remember: body.rememberUser === 'on',
    visitor,
    ipAddress,
    fingerprint: event.context.fingerPrint ? { ...event.context.fingerPrint } : null,
  })
  if (!result.ok) {
    if (result.reason === 'email_taken') return authFail(409, 'Email already registered')
    return authFail(result.status, result.status === 503 ? 'Service unavailable' : 'Validation failed', { fields: result.fields })
  }
  return sendTokens(event, ctx, result.pair, 201)
})
