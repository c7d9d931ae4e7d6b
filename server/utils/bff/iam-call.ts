/**
 * One signed call from the BFF to the IAM on behalf of the browser: allow-listed path + method,
 * the end user's IP and User-Agent forwarded, and only the cookies this call needs.
 */
import { getCookie, getRequestHeader, type H3Event } from 'h3'
import { IamUnavailableError, type IamResponse } from '../../../iam/client/iam-client'
import { isCanonicalPath } from '../../../iam/contract/request-path'
import { clientIpOf } from '../client-ip'
import { useIamClient } from '../iam'
import { useGatewayLog } from '../log'
import { isAllowedIamCall, type BffRouteId } from './allow-list'
import { currentCookie, isCookieValue } from './cookies'
import { iamRouteCall, type IamRouteCall, type IamRouteInput } from './iam-route'
import { bffFail, IAM_UNAVAILABLE_MESSAGE } from './respond'

/** One request to the IAM: method, path (parameters filled in), query, body and credentials. */
export type BffIamCall = IamRouteCall

/** Sends one allow-listed request to the IAM; a network failure becomes 503 JSON for the browser. */
export async function callIam<T = unknown>(event: H3Event, call: BffIamCall): Promise<IamResponse<T>> {
  // A path parameter from the browser (`..`, `%2f`) must not move the call to another route: the
  // IAM client would refuse it too (iam/contract/request-path.ts), but as a 400 for the person here.
  if (!isCanonicalPath(call.path)) bffFail(400, { ok: false, error: 'This address is not valid. Check the link you followed and try again.', code: 'path_invalid' })
  if (!isAllowedIamCall(call.method, call.path)) {
    // A BFF route asked for something outside the table: a programming error, never user input.
    throw new Error(`BFF: IAM call not allow-listed: ${call.method} ${call.path}`)
  }
  const clientIp = clientIpOf(event)
  // Without an address the IAM would take the gateway's own for the user's: every user one client.
  if (!clientIp) bffFail(400, { ok: false, error: 'Your network address could not be determined.', code: 'client_ip_unknown' })
  const cookies: Record<string, string> = {}
  for (const name of call.cookies ?? []) {
    const value = name === 'session' || name === 'canary_id' ? currentCookie(event, name) : getCookie(event, name)
    if (value && isCookieValue(value)) cookies[name] = value
  }
  try {
    return await useIamClient().request<T>({
      method: call.method,
      path: call.path,
      query: call.query,
      body: call.body,
      cookies,
      headers: {
        ...(call.bearer ? { authorization: `Bearer ${call.bearer}` } : {}),
        ...(call.apiKey !== undefined ? { 'x-api-key': call.apiKey } : {}),
      },
      clientIp,
      userAgent: getRequestHeader(event, 'user-agent') ?? '',
    })
  } catch (error) {
    if (error instanceof IamUnavailableError) {
      useGatewayLog().warn('bff: IAM unreachable', { requestId: event.context.requestId, path: call.path, err: error })
      bffFail(503, { ok: false, error: IAM_UNAVAILABLE_MESSAGE, code: 'service_unavailable' }, { 'retry-after': '5' })
    }
    throw error
  }
}

/** Calls the IAM route `id` of the route table with input typed by its entry's schemas. */
export function callIamRoute<I extends BffRouteId, T = unknown>(event: H3Event, id: I, input: IamRouteInput<I>): Promise<IamResponse<T>> {
  return callIam<T>(event, iamRouteCall(id, input))
}
