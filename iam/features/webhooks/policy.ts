/**
 * The outbound policies of webhook deliveries (shared/outbound.ts) from the config's `webhooks`
 * section, one per owner of endpoints: one object per config each, so the deliveries share its kept
 * connections to their receivers.
 *
 * The platform's endpoints are its administrators' and may reach the ranges `allowAddresses` opens
 * (a receiver on the company network). An organization's endpoints are its owners', and any signed-in
 * person can found an organization: the operator's ranges do not extend to them, or anyone could point
 * an endpoint into the company network and read the answers in its delivery log. They reach only
 * `organizationAllowAddresses`, empty unless the operator opens a range to every organization on
 * purpose (development and tests, or a deployment whose organizations are all its own).
 */
import type { IamConfig } from '../../lib/config-schema'
import type { OutboundPolicy } from '../../../shared/outbound'

/** Whose endpoint a URL is: the platform's administrators' or an organization's owners'. */
export type EndpointOwner = 'platform' | 'organization'

const policies = new WeakMap<IamConfig['webhooks'], Record<EndpointOwner, OutboundPolicy>>()

export function outboundPolicyOf(config: Pick<IamConfig, 'webhooks'>, owner: EndpointOwner): OutboundPolicy {
  const w = config.webhooks
  let pair = policies.get(w)
  if (!pair) {
    const common = { allowHttp: w.allowHttp, timeoutMs: w.timeoutMs, maxBytes: w.maxResponseBytes, reuseConnections: true }
    pair = { platform: { ...common, allowAddresses: w.allowAddresses }, organization: { ...common, allowAddresses: w.organizationAllowAddresses } }
    policies.set(w, pair)
  }
  return pair[owner]
}
