/**
 * The anonymous link routes: the GET previews (what a link is for, before it is used) and the
 * POSTs that complete a link bound to a user id without a session (verify-email, undo-email-change).
 * Each route's unit holds its limiter and link query (iam/http/route.ts); the answers live here once.
 */
import type { IamContext } from '../context'
import type { ActionFailure, ActionLimited } from '../features/mfa/action-failures'
import type { Actor } from '../features/security-events/repository'
import type { LinkParams } from '../features/mfa/link-token'
import { failAction } from './account-action-outcomes'
import { okEnvelope } from './respond'

type Preview = (ctx: IamContext, params: LinkParams) => Promise<{ ok: true; reason: string } | ActionFailure>

/** 200 `{ ok, date, data: { link, reason } }`; 400 `{ error }` for a bad link. */
export async function answerLinkPreview(ctx: IamContext, params: LinkParams, link: string, preview: Preview) {
  const result = await preview(ctx, params)
  if (!result.ok) return failAction(result)
  return okEnvelope({ link, reason: result.reason })
}

type Completion = (ctx: IamContext, input: { params: LinkParams; actor: Actor }) => Promise<{ ok: true } | ActionFailure | ActionLimited>

/** 200 `{ ok, date, data: { message } }`; the action's failure otherwise. */
export async function completeAnonymousLink(ctx: IamContext, input: { params: LinkParams; actor: Actor }, complete: Completion, message: string) {
  const result = await complete(ctx, input)
  if (!result.ok) return failAction(result)
  return okEnvelope({ message })
}
