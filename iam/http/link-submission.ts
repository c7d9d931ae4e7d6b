/**
 * The common front half of the routes that complete a custom-MFA link with a code
 * (POST /auth/verify-custom-mfa, POST /update/email): full authentication, the link parameters
 * from the query, XSS, the body schema, the code limiter, and the actor recorded with the action.
 */
import { getQuery, type H3Event } from 'h3'
import type { z } from 'zod'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import { parseLinkQuery } from '../features/mfa/link-params'
import type { LinkParams } from '../features/mfa/link-token'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail, fullAuthentication, rejectXss, validationFields, type RequestUser } from './auth'
import { enforceRateLimit } from './rate-limit'
import { getClientIp, getJsonBody } from './request'

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

/** Runs the checks in the spec's order; every refusal ends the request through authFail / httpFail. */
export async function readLinkSubmission<S extends z.ZodType>(event: H3Event, bodySchema: S): Promise<LinkSubmission<z.infer<S>>> {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  const params = parseLinkQuery(getQuery(event))
  if (!params) return authFail(400, LINK_ERRORS.invalid)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await rejectXss(event, raw)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  await enforceRateLimit(ctx, 'codes', { ip: getClientIp(event), on: 'ip' })
  return { ctx, user, params, data: parsed.data, actor: actorOf(event, user.visitorRowId) }
}
