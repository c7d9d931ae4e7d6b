/** The refusals of the webhook admin routes (features/webhooks) as answers. */
import { authFail } from './auth'
import { ORG_FAILURES } from './org-failures'

export function refuseWebhook(failure: { code: 'webhook_url_refused'; message: string } | { code: 'webhook_not_found' | 'delivery_not_found' | 'org_not_found' }): never {
  if (failure.code === 'org_not_found') return ORG_FAILURES.not_found()
  if (failure.code === 'webhook_url_refused') return authFail(400, 'webhook_url_refused', 'Deliveries may not go to that URL', { fields: { url: failure.message } })
  if (failure.code === 'delivery_not_found') return authFail(404, 'delivery_not_found', 'No such delivery')
  return authFail(404, 'webhook_not_found', 'No such webhook endpoint')
}
