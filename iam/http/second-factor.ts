/** Shared front half of the signed-in routes that take a second-factor code. */
import type { H3Event } from 'h3'
import type { RouteContract } from '../contract/define'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import { getConfiguredLimiters } from '../features/rate-limits/configured-limiters'
import { limiterIpKey } from '../lib/ip'
import { fullAuthentication, rejectXss, type RequestUser } from './auth'
import { actorOf } from './link-submission'
import { enforceRateLimit } from './rate-limit'
import { getClientIp, getJsonBody } from './request'
import { readRouteInput, type RouteInput } from './route-input'

export interface FactorRequest<T> {
  ctx: IamContext
  user: RequestUser
  data: T
  actor: Actor
}

/**
 * Full authentication, XSS, the body read with the route table entry's schema (its 400), then the
 * per-IP codes limiter, as for the emailed code (http/link-submission.ts): every route taking a
 * second-factor code is a place to guess one, signed in or not.
 */
export async function readFactorRequest<R extends RouteContract>(event: H3Event, route: R): Promise<FactorRequest<RouteInput<R, 'body'>>> {
  const user = await fullAuthentication(event)
  await rejectXss(event, getJsonBody(event))
  const data = readRouteInput(event, route, 'body')
  const ctx = useIam()
  await enforceRateLimit(getConfiguredLimiters(ctx.store, ctx.config).auth.codes, `ip_${limiterIpKey(getClientIp(event))}`)
  return { ctx, user, data, actor: actorOf(event, user.visitorRowId) }
}

export const INVALID_FACTOR_CODE = 'Invalid code'
