/**
 * The anonymous link routes: the GET previews (what a link is for, before it is used) and the
 * POSTs that complete a link bound to a user id without a session (verify-email, undo-email-change).
 * Each route keeps its own contract, limiter key and feature call; the order of the checks lives here once.
 */
import type { H3Event } from 'h3'
import { useIam, type IamContext } from '../context'
import type { Actor, ActionFailure, ActionLimited } from '../features/account-actions/outcomes'
import type { LinkParams } from '../features/mfa/link-token'
import { failAction } from './account-action-outcomes'
import { getFingerPrint } from './auth'
import { actorOf, readLinkQuery, type LinkRoute } from './link-submission'
import { enforceRateLimit } from './rate-limit'
import { getClientIp } from './request'
import { okEnvelope } from './respond'

type Preview = (ctx: IamContext, params: LinkParams) => Promise<{ ok: true; reason: string } | ActionFailure>

/** 200 `{ ok, date, data: { link, reason } }`; 400 `{ error }` for a bad link; 429 from the `links` limiter. */
export async function answerLinkPreview(event: H3Event, route: LinkRoute, link: string, preview: Preview) {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = readLinkQuery(event, route)
  const result = await preview(ctx, params)
  if (!result.ok) return failAction(result)
  return okEnvelope({ link, reason: result.reason })
}

type Completion = (ctx: IamContext, input: { params: LinkParams; actor: Actor }) => Promise<{ ok: true } | ActionFailure | ActionLimited>

/** 200 `{ ok, date, data: { message } }`; the action's failure otherwise; 429 from the `codes` limiter. */
export async function completeAnonymousLink(event: H3Event, route: LinkRoute, on: 'verify' | 'undo', complete: Completion, message: string) {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'codes', { ip: getClientIp(event), on })
  const params = readLinkQuery(event, route)
  await getFingerPrint(event)
  const result = await complete(ctx, { params, actor: actorOf(event, event.context.visitor?.id ?? null) })
  if (!result.ok) return failAction(result)
  return okEnvelope({ message })
}
