/**
 * The gateway's one IAM client, built from the gateway config (`iam.url`, `iam.hmac`,
 * `iam.timeoutMs`). Every server route reaches the IAM through it, so every call is signed.
 */
import { createIamClient, type IamClient } from '../../iam/client/iam-client'
import { useGatewayConfig } from './gateway-config'
import { observeIamCall } from './metrics'

let client: IamClient | undefined

/** The process-wide IAM client (created on first use, after the config was parsed). */
export function useIamClient(): IamClient {
  if (client) return client
  const { iam } = useGatewayConfig()
  client = createIamClient({ baseUrl: iam.url, hmac: iam.hmac, timeoutMs: iam.timeoutMs, observe: observeIamCall })
  return client
}
