/**
 * The gateway's half of the OpenID Provider: /oidc/** goes to the IAM as it came (method, path,
 * query, bounded body, the headers the provider reads, cookies), signed like every IAM call; the
 * answer comes back as it was (status, headers, every Set-Cookie line, body), redirects included,
 * never followed here. The issuer is this origin + /oidc (iam/features/oidc/provider.ts), so the
 * IAM builds every URL it prints from its configuration, not from these headers.
 */
import { appendResponseHeader, readRawBody, setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import { IamUnavailableError, type IamRawResponse } from '../../iam/client/iam-client'
import { isForwardableTarget } from '../../iam/contract/request-path'
import { OIDC_MOUNT } from '../../iam/contract/oidc-mount'
import { clientIpOf } from './client-ip'
import { useIamClient } from './iam'
import { useGatewayLog } from './log'

/** What the provider reads from a request; nothing else leaves the gateway. */
const PASSED_REQUEST_HEADERS = [
  'accept',
  'accept-language',
  'authorization',
  'content-type',
  'cookie',
  'dpop',
  'origin',
  'user-agent',
  'access-control-request-method',
  'access-control-request-headers',
] as const

/** Hop-by-hop and framing headers: the gateway frames its own answer (the body arrives decoded). */
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'set-cookie', 'date', 'x-request-id'])

/**
 * Forwards the request to the provider; `target` replaces the path + query (a well-known alias).
 * Only a canonical path under /oidc leaves (iam/contract/request-path.ts): `/oidc/%2e%2e/x` would
 * otherwise reach `/x` at the IAM with this gateway's signature, so it is 400 here.
 */
export async function forwardToProvider(event: H3Event, target = event.node.req.url ?? '/'): Promise<IamRawResponse | undefined> {
  if (!isForwardableTarget(target, OIDC_MOUNT)) {
    setResponseStatus(event, 400)
    setResponseHeader(event, 'content-type', 'text/plain; charset=utf-8')
    event.node.res.end('This address is not a valid sign-in service address.')
    return undefined
  }
  const clientIp = clientIpOf(event)
  if (!clientIp) {
    setResponseStatus(event, 400)
    setResponseHeader(event, 'content-type', 'text/plain; charset=utf-8')
    event.node.res.end('Your network address could not be determined.')
    return undefined
  }
  // read from the request's own header table: h3's getRequestHeader copies every header per call
  const passed = event.node.req.headers
  const headers: Record<string, string> = {}
  for (const name of PASSED_REQUEST_HEADERS) {
    const value = passed[name]
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  const raw = event.method === 'GET' || event.method === 'HEAD' ? undefined : await readRawBody(event, false)
  try {
    return await useIamClient().forward({ method: event.method, target, headers, body: raw ? new Uint8Array(raw) : undefined, clientIp })
  } catch (error) {
    if (!(error instanceof IamUnavailableError)) throw error
    useGatewayLog().warn('oidc: IAM unreachable', { requestId: event.context.requestId, err: error })
    setResponseStatus(event, 503)
    setResponseHeader(event, 'retry-after', 5)
    setResponseHeader(event, 'content-type', 'text/plain; charset=utf-8')
    event.node.res.end('The sign-in service is unavailable. Please try again in a moment.')
    return undefined
  }
}

/** Writes the provider's answer as the IAM gave it. */
export function sendProviderAnswer(event: H3Event, answer: IamRawResponse): Uint8Array {
  setResponseStatus(event, answer.status)
  answer.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) setResponseHeader(event, name, value)
  })
  for (const line of answer.setCookies) appendResponseHeader(event, 'set-cookie', line)
  return answer.body
}
