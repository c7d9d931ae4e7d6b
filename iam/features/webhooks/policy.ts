/** The outbound policy of webhook deliveries (shared/outbound.ts) from the config's `webhooks` section. */
import type { IamConfig } from '../../lib/config-schema'
import type { OutboundPolicy } from '../../../shared/outbound'

export function outboundPolicyOf(config: Pick<IamConfig, 'webhooks'>): OutboundPolicy {
  const w = config.webhooks
  return { allowHttp: w.allowHttp, allowAddresses: w.allowAddresses, timeoutMs: w.timeoutMs, maxBytes: w.maxResponseBytes }
}
