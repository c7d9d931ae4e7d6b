/**
 * One signed call from the BFF to the IAM on behalf of the browser: allow-listed path + method,
 * the end user's IP and User-Agent forwarded, and only the cookies this call needs.
 */
import { getCookie, getRequestHeader, type H3Event } from 'h3'
import { IamUnavailableError, type IamResponse } from '../../../iam/client/iam-client'
import { ACCEPT_LANGUAGE_MAX, isLocale } from '../../../iam/contract/locales'
import { isCanonicalPath } from '../../../iam/contract/request-path'
import { readTimeZone, TIME_ZONE_COOKIE, TIME_ZONE_HEADER } from '../../../iam/contract/time-zones'
import { clientIpOf } from '../client-ip'
import { useIamClient } from '../iam'
import { useGatewayLog } from '../log'
import { isAllowedIamCall, type BffRouteId } from './allow-list'
import { currentCookie, isCookieValue } from './cookies'
import { iamRouteCall, type IamRouteCall, type IamRouteInput } from './iam-route'
import { bffFail, IAM_UNAVAILABLE_MESSAGE } from './respond'

/** One request to the IAM: method, path (parameters filled in), query, body and credentials. */
export type BffIamCall = IamRouteCall

/**
 * The person's language for the IAM (its mails and pages, iam/contract/locales.ts): the language
 * chosen on the site (the `locale` cookie the pages set) when it is a supported one, else the
 * browser's own Accept-Language as sent, cut to a bounded length; none when the browser sent none.
 * Not a credential: outside the signature's covered headers (iam/client/hmac.ts), like User-Agent.
 */
export function acceptLanguageFor(event: H3Event): string | undefined {
  const chosen = getCookie(event, 'locale')
  if (isLocale(chosen)) return chosen
  // only the characters a language list has (RFC 9110 section 12.5.4): no header injection
  const sent = getRequestHeader(event, 'accept-language')?.slice(0, ACCEPT_LANGUAGE_MAX).replace(/[^A-Za-z0-9*,;=.\- ]/g, '')
  return sent ? sent : undefined
}

/**
 * The person's time zone for the IAM's mails: the `time_zone` cookie the pages write
 * (plugins/time-zone.client.ts) when it names a zone this runtime knows, else none (the IAM checks
 * it again and ignores what it does not know). Not a credential, like the language.
 */
export const timeZoneFor = (event: H3Event): string | null => readTimeZone(getCookie(event, TIME_ZONE_COOKIE))

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
  const acceptLanguage = acceptLanguageFor(event)
  const timeZone = timeZoneFor(event)
  try {
    return await useIamClient().request<T>({
      method: call.method,
      path: call.path,
      query: call.query,
      body: call.body,
      raw: call.raw,
      cookies,
      headers: {
        ...(call.bearer ? { authorization: `Bearer ${call.bearer}` } : {}),
        ...(call.apiKey !== undefined ? { 'x-api-key': call.apiKey } : {}),
        ...(acceptLanguage ? { 'accept-language': acceptLanguage } : {}),
        ...(timeZone ? { [TIME_ZONE_HEADER]: timeZone } : {}),
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
