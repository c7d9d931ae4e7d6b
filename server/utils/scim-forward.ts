/**
 * The gateway's half of the SCIM service (docs/scim.md): /scim/v2/** goes to the IAM as it came
 * (method, canonical path, query, bounded body, the headers SCIM reads), signed for the purpose
 * `scim`, which only the IAM's SCIM mount accepts and which reaches nothing else there
 * (docs/architecture.md, "Trust boundaries"). The answer comes back as it was. No cookie travels:
 * an identity provider authenticates with the organization's bearer token, never a session.
 */
import { getRequestHeader, readRawBody, setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import { IamUnavailableError, type IamRawResponse } from '../../iam/client/iam-client'
import { isForwardableTarget } from '../../iam/contract/request-path'
import { SCIM_MOUNT } from '../../iam/contract/scim-mount'
import { clientIpOf } from './client-ip'
import { useIamClient } from './iam'
import { useGatewayLog } from './log'

/** What the SCIM service reads from a request; nothing else leaves the gateway. */
const PASSED_REQUEST_HEADERS = ['accept', 'authorization', 'content-type', 'if-match', 'if-none-match', 'user-agent'] as const

/** The headers of the IAM's answer passed back; the gateway frames the rest itself. */
const PASSED_RESPONSE_HEADERS = ['content-type', 'cache-control', 'location', 'etag', 'www-authenticate'] as const

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

/** An RFC 7644 section 3.12 error answered by the gateway itself. */
function refuse(event: H3Event, status: number, detail: string, headers: Record<string, string | number> = {}): undefined {
  setResponseStatus(event, status)
  setResponseHeader(event, 'content-type', 'application/scim+json; charset=utf-8')
  setResponseHeader(event, 'cache-control', 'no-store')
  for (const [name, value] of Object.entries(headers)) setResponseHeader(event, name, value)
  event.node.res.end(JSON.stringify({ schemas: [SCIM_ERROR], status: String(status), detail }))
  return undefined
}

/**
 * Forwards the request to the IAM's SCIM service. Only a canonical path under /scim/v2 leaves
 * (iam/contract/request-path.ts): `/scim/v2/%2e%2e/...` would otherwise reach another IAM path
 * with this gateway's signature, so it is 400 here.
 */
export async function forwardToScim(event: H3Event): Promise<IamRawResponse | undefined> {
  const target = event.node.req.url ?? '/'
  if (!isForwardableTarget(target, SCIM_MOUNT)) return refuse(event, 400, 'Not a SCIM address')
  const clientIp = clientIpOf(event)
  if (!clientIp) return refuse(event, 400, 'The network address could not be determined')
  const headers: Record<string, string> = {}
  for (const name of PASSED_REQUEST_HEADERS) {
    const value = getRequestHeader(event, name)
    if (value !== undefined) headers[name] = value
  }
  const raw = event.method === 'GET' || event.method === 'HEAD' ? undefined : await readRawBody(event, false)
  try {
    return await useIamClient().forward({ method: event.method, target, headers, body: raw ? new Uint8Array(raw) : undefined, clientIp, purpose: 'scim' })
  } catch (error) {
    if (!(error instanceof IamUnavailableError)) throw error
    useGatewayLog().warn('scim: IAM unreachable', { requestId: event.context.requestId, err: error })
    return refuse(event, 503, 'The provisioning service is unavailable: try again in a moment', { 'retry-after': 5 })
  }
}

/** Writes the SCIM answer as the IAM gave it. */
export function sendScimAnswer(event: H3Event, answer: IamRawResponse): Uint8Array {
  setResponseStatus(event, answer.status)
  for (const name of PASSED_RESPONSE_HEADERS) {
    const value = answer.headers.get(name)
    if (value !== null) setResponseHeader(event, name, value)
  }
  return answer.body
}
