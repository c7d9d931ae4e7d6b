import { defineEventHandler } from 'h3'
import { useIam } from '../../../../context'
import { ROUTES } from '../../../../contract/routes'
import { finishSignIn } from '../../../../features/passkeys/sign-in-service'
import { authFail, rejectXss, requireDevice, sendTokens } from '../../../../http/auth'
import { enforceRateLimit } from '../../../../http/rate-limit'
import { getClientIp, getJsonBody } from '../../../../http/request'
import { readRouteInput } from '../../../../http/route-input'

/** One body for every refusal: an unknown passkey reads like a bad signature or a spent challenge. */
const INVALID_PASSKEY = 'The passkey could not be verified; try again'

/**
 * POST /auth/passkeys/login/verify (no session; canary_id required, `{ credential, rememberUser? }`):
 * answers like POST /login. 200 tokens; 400 validation or no canary; 401 the assertion does not
 * verify; 403 XSS / banned device / suspended account; 429 (the login's per-IP budget).
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const visitor = await requireDevice(event)
  await rejectXss(event, getJsonBody(event))
  const body = readRouteInput(event, ROUTES.passkeyLoginVerify, 'body')
  await enforceRateLimit(ctx, 'loginIp', { ip: ipAddress })
  const result = await finishSignIn(ctx, {
    credential: body.credential,
    remember: body.rememberUser === 'on',
    visitor,
    ipAddress,
    fingerprint: event.context.fingerPrint ? { ...event.context.fingerPrint } : null,
  })
  if (result.ok) return sendTokens(event, ctx, result.pair, 200)
  if (result.code === 'banned') return authFail(403, 'Account suspended', { banned: true })
  return authFail(401, INVALID_PASSKEY)
})
