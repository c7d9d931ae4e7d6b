/**
 * The outbound policy of webhook deliveries (shared/outbound.ts) from the config's `webhooks` section:
 * one object per config, so the deliveries share its kept connections to their receivers.
 */
import type { IamConfig } from '../../lib/config-schema'
import type { OutboundPolicy } from '../../../shared/outbound'

const policies = new WeakMap<IamConfig['webhooks'], OutboundPolicy>()

export function outboundPolicyOf(config: Pick<IamConfig, 'webhooks'>): OutboundPolicy {
  const w = config.webhooks
  let policy = policies.get(w)
  if (!policy) {
    policy = { allowHttp: w.allowHttp, allowAddresses: w.allowAddresses, timeoutMs: w.timeoutMs, maxBytes: w.maxResponseBytes, reuseConnections: true }
    policies.set(w, policy)
  }
  return policy
}
