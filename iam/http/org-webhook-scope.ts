/** The organization webhook routes' first step: the organization's endpoints for its owners, or the organization routes' refusal. */
import type { IamContext } from '../context'
import type { EndpointScope } from '../features/webhooks/endpoints-repo'
import { organizationScope } from '../features/webhooks/organization-scope'
import { ORG_FAILURES } from './org-failures'
import { answerFailure, limit } from './route'

/** The count of an organization's webhook changes and test events, per user (rate_limiters.organizationWebhooks) */
export const COUNTED = limit('organizationWebhooks', ({ user }) => ({ userId: user!.userId }))

export async function ownersWebhookScope(ctx: Pick<IamContext, 'db'>, orgId: string, userId: number): Promise<EndpointScope> {
  const result = await organizationScope(ctx.db, orgId, userId)
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return result.scope
}
