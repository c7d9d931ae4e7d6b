/**
 * The common front half of the routes that complete a custom-MFA link with a code
 * (POST /auth/verify-custom-mfa, POST /update/email): full authentication, the link parameters
 * from the query, XSS, the body schema, the code limiter, and the actor recorded with the action.
 */
import type { H3Event } from 'h3'
import type { RouteContract } from '../contract/define'
import type { linkQuery } from '../contract/inputs'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import type { LinkParams } from '../features/mfa/link-token'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail, fullAuthentication, rejectXss, type RequestUser } from './auth'
import { enforceRateLimit } from './rate-limit'
import { getClientIp, getJsonBody } from './request'
import { readRouteInput, type RouteInput } from './route-input'

/** The request's device and network as recorded with a completed action. */
export function actorOf(event: H3Event, visitorRowId: number | null): Actor {
  const { fingerPrint } = event.context
  return { visitorRowId, ipAddress: getClientIp(event), fingerprint: fingerPrint ? { ...fingerPrint } : null }
}

export interface LinkSubmission<T> {
  ctx: IamContext
  user: RequestUser
  params: LinkParams
  data: T
  actor: Actor
}

/** A link query its schema refuses is the same 400 as a bad link. */
const invalidLink = (): never => authFail(400, LINK_ERRORS.invalid)

/** A route whose query is a magic link. */
export type LinkRoute = RouteContract & { query: typeof linkQuery }

/** The magic-link query of `route`; 400 `Invalid link` when malformed. */
export function readLinkQuery(event: H3Event, route: LinkRoute): LinkParams {
  return readRouteInput(event, route, 'query', invalidLink)
}

/** Runs the checks in the spec's order; every refusal ends the request through authFail / httpFail. */
export async function readLinkSubmission<R extends LinkRoute>(event: H3Event, route: R): Promise<LinkSubmission<RouteInput<R, 'body'>>> {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  const params = readLinkQuery(event, route)
  await rejectXss(event, getJsonBody(event))
  const data = readRouteInput(event, route, 'body')
  await enforceRateLimit(ctx, 'codes', { ip: getClientIp(event), on: 'ip' })
  return { ctx, user, params, data, actor: actorOf(event, user.visitorRowId) }
}
