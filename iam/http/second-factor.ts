/** Shared front half of the signed-in routes that take a second-factor code. */
import type { H3Event } from 'h3'
import type { z } from 'zod'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import { getConfiguredLimiters } from '../features/rate-limits/configured-limiters'
import { limiterIpKey } from '../lib/ip'
import { authFail, fullAuthentication, rejectXss, validationFields, type RequestUser } from './auth'
import { actorOf } from './link-submission'
import { enforceRateLimit } from './rate-limit'
import { getClientIp, getJsonBody } from './request'

export interface FactorRequest<T> {
  ctx: IamContext
  user: RequestUser
  data: T
  actor: Actor
}

/**
 * Full authentication, XSS, the body against the route table's schema (400 with fields), then the
 * per-IP codes limiter, as for the emailed code (http/link-submission.ts): every route taking a
 * second-factor code is a place to guess one, signed in or not.
 */
export async function readFactorRequest<S extends z.ZodType>(event: H3Event, bodySchema: S): Promise<FactorRequest<z.infer<S>>> {
  const user = await fullAuthentication(event)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await rejectXss(event, raw)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  const ctx = useIam()
  await enforceRateLimit(getConfiguredLimiters(ctx.store, ctx.config).auth.codes, `ip_${limiterIpKey(getClientIp(event))}`)
  return { ctx, user, data: parsed.data, actor: actorOf(event, user.visitorRowId) }
}

export const INVALID_FACTOR_CODE = 'Invalid code'
