import { defineEventHandler } from 'h3'
import { ROUTES } from '../contract/routes'
import { useIam } from '../context'
import { visitLoginDevice } from '../features/users/login-device'
import { login } from '../features/users/login-service'
import { authFail, rejectXss, sendTokens } from '../http/auth'
import { throwTooManyRequests } from '../http/rate-limit'
import { getJsonBody } from '../http/request'
import { readRouteInput } from '../http/route-input'
import { signInDevice, signInDeviceVisit } from '../http/sign-in'
import { emitSignal } from '../lib/signals'

/** One body for an unknown address and a wrong password: nothing tells them apart. */
const INVALID_CREDENTIALS = 'Invalid email or password'

/** POST /login: 200 tokens; 400 validation; 401 invalid credentials; 403 XSS/banned; 429 (IP limits, account delay). */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const raw = getJsonBody<Record<string, unknown>>(event)
  // the device step reads the account of the address as typed in the same statement (login-device.ts)
  const { visitor, prefetched } = await signInDeviceVisit(event, (iam, facts) => visitLoginDevice(iam, facts, raw?.email))
  const { password: _p, ...freeText } = raw
  await rejectXss(event, freeText)
  const body = readRouteInput(event, ROUTES.login, 'body')
  // the per-IP budget, the IP + address limiter and the account delay, in order, in one store call (login-delay.ts)
  const result = await login(ctx, {
    email: body.email,
    password: body.password,
    remember: body.rememberUser === 'on',
    prefetched,
    ...signInDevice(event, visitor),
  })
  // refused by a limiter before anything else: not a login outcome (/metrics), as when the route consumed them itself
  if (!result.ok && result.code === 'limited') throwTooManyRequests(result.decision)
  emitSignal({ kind: 'login', outcome: result.ok ? 'ok' : result.code })
  if (!result.ok) {
    if (result.code === 'throttled') throwTooManyRequests({ ok: false, retryMs: result.retryMs, permanent: false })
    if (result.code === 'banned') return authFail(403, 'Account suspended', { banned: true })
    return authFail(401, INVALID_CREDENTIALS)
  }
  // a second factor is due: the account limiter keeps counting until the sign-in completes
  if ('secondFactor' in result) return { ok: true as const, date: new Date().toISOString(), secondFactor: result.secondFactor }
  // success has forgiven this address's failures from this IP (login-service.ts); the IP budget keeps counting
  return sendTokens(event, ctx, result.pair, 200)
})
