/**
 * The gateway's one IAM client, built from the gateway config (`iam.url`, `iam.hmac`,
 * `iam.timeoutMs`). Every server route reaches the IAM through it, so every call is signed.
 */
import { createIamClient, type IamClient } from '../../iam/client/iam-client'
import { startClientSpan, tracingActive } from '../../shared/tracing'
import { useGatewayConfig } from './gateway-config'
import { observeIamCall } from './metrics'

let client: IamClient | undefined

/** The IAM's name as a peer in the gateway's client spans. */
const IAM_SERVICE = 'identity-platform-iam'

/** The process-wide IAM client (created on first use, after the config was parsed). */
export function useIamClient(): IamClient {
  if (client) return client
  const { iam } = useGatewayConfig()
  // with tracing on, each call is a client span whose traceparent the IAM continues (shared/tracing.ts)
  const trace = tracingActive ? (method: string) => startClientSpan(method, IAM_SERVICE) : undefined
  client = createIamClient({ baseUrl: iam.url, hmac: iam.hmac, timeoutMs: iam.timeoutMs, observe: observeIamCall, trace })
  return client
}
