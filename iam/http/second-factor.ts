/** Shared front half of the signed-in routes that take a second-factor code. */
import type { H3Event } from 'h3'
import type { RouteContract } from '../contract/define'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import { fullAuthentication, rejectXss, type RequestUser } from './auth'
import { actorOf } from './link-submission'
import { enforceRateLimit } from './rate-limit'
import { getClientIp, getJsonBody } from './request'
import { readRouteInput, type RouteInput } from './route-input'
import { requireRecentSignIn, requireVerifiedEmail } from './reauthenticate'
import type { CodeLocked } from '../features/second-factors/code-budget'
import { retrySeconds } from '../features/rate-limits/limiter'
import { httpFail } from './respond'

export interface FactorRequest<T> {
  ctx: IamContext
  user: RequestUser
  data: T
  actor: Actor
}

/**
 * Full authentication (and the guards asked for: http/reauthenticate.ts), XSS, the body read with the route table entry's schema (its 400), then the
 * per-IP codes limiter, as for the emailed code (http/link-submission.ts): every route taking a
 * second-factor code is a place to guess one, signed in or not.
 */
export async function readFactorRequest<R extends RouteContract>(
  event: H3Event,
  route: R,
  guards: { recentSignIn?: boolean; verifiedEmail?: boolean } = {},
): Promise<FactorRequest<RouteInput<R, 'body'>>> {
  const user = await fullAuthentication(event)
  if (guards.verifiedEmail) requireVerifiedEmail(event)
  if (guards.recentSignIn) requireRecentSignIn(event)
  await rejectXss(event, getJsonBody(event))
  const data = readRouteInput(event, route, 'body')
  const ctx = useIam()
  // the emailed code's budget (http/link-submission.ts): one per IP for every code, whichever kind
  await enforceRateLimit(ctx, 'codes', { ip: getClientIp(event), on: 'ip' })
  return { ctx, user, data, actor: actorOf(event, user.visitorRowId) }
}

export const INVALID_FACTOR_CODE = 'Invalid code'

/**
 * 429 for an account whose code entry is locked (features/second-factors/code-budget.ts): the
 * spec's limiter body and Retry-After, and a sentence the pages can show as it is.
 */
export function failCodesLocked(locked: Pick<CodeLocked, 'retryMs'>): never {
  const retry = retrySeconds(locked.retryMs)
  const minutes = Math.ceil(retry / 60)
  return httpFail(
    429,
    { error: 'Too many requests', retry, message: `Too many wrong codes for this account. Code entry is locked; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` },
    { 'Retry-After': String(retry) },
  )
}
