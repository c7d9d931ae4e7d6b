/**
 * The gateway's half of SAML sign-in (docs/enterprise.md): /sso/saml/:connectionId/{metadata,
 * start, acs} go to the IAM's routes of the same paths, signed with the `sso` purpose; the IAM
 * verifies everything. Here: the path is canonical before it leaves (iam/contract/request-path.ts),
 * the IdP's form post becomes the IAM's JSON body, a session ends in cookies set as for the other
 * sign-ins (server/utils/oauth/handle-callback.ts) and a same-site page that moves on (the
 * SameSite=Strict cookies are not sent on a redirect chain started at the provider), and every
 * failure lands on /sso/error with the IAM's code, a page that says what happened and what to do.
 */
import { getRequestHeader, readBody, sendRedirect, setResponseHeader, setResponseHeaders, setResponseStatus, type H3Event } from 'h3'
import { IamUnavailableError } from '../../../iam/client/iam-client'
import { isForwardableTarget } from '../../../iam/contract/request-path'
import { forwardSetCookies, setAccessCookies } from '../bff/cookies'
import { clientIpOf } from '../client-ip'
import { useIamClient } from '../iam'
import { useGatewayLog } from '../log'
import type { OAuthRedirectError } from '../oauth/error-codes'
import { ensureCanary } from '../oauth/iam-calls'
import { renderSuccessPage } from '../oauth/success-page'
import { isSsoErrorCode } from '../../../shared/sso-error-codes'

export const SSO_MOUNT = '/sso/saml'

/** 302 to the error page with a code it words (shared/sso-error-codes.ts), else `sso_failed`; nothing from the request chooses the target. */
export function redirectToSsoError(event: H3Event, code: unknown): Promise<void> {
  const known = isSsoErrorCode(code) ? code : 'sso_failed'
  setResponseHeader(event, 'cache-control', 'no-store')
  setResponseHeader(event, 'referrer-policy', 'no-referrer')
  return sendRedirect(event, `/sso/error?code=${known}`, 302)
}

const codeOf = (body: unknown): unknown => (body && typeof body === 'object' ? (body as Record<string, unknown>)['code'] : undefined)

/** The request's path + query when it may be forwarded; else null (answered with the error page). */
function forwardablePath(event: H3Event): string | null {
  const target = event.node.req.url ?? '/'
  return isForwardableTarget(target, SSO_MOUNT) ? target : null
}

function client(event: H3Event) {
  return { clientIp: clientIpOf(event), userAgent: getRequestHeader(event, 'user-agent') || undefined }
}

async function callSso<T>(event: H3Event, request: { method: 'GET' | 'POST'; path: string; query?: Record<string, string>; body?: unknown; cookies?: Record<string, string> }) {
  try {
    return await useIamClient().request<T>({ ...request, ...client(event), purpose: 'sso' })
  } catch (error) {
    if (!(error instanceof IamUnavailableError)) throw error
    useGatewayLog().warn('sso: IAM unreachable', { requestId: event.context.requestId, err: error })
    return null
  }
}

/** GET /sso/saml/:connectionId/metadata: the IAM's XML as it is. */
export async function samlMetadata(event: H3Event): Promise<string | undefined> {
  const path = forwardablePath(event)
  if (!path) return void (await redirectToSsoError(event, 'sso_connection_not_found'))
  try {
    const answer = await useIamClient().forward({ method: 'GET', target: path, headers: { accept: 'application/samlmetadata+xml' }, clientIp: clientIpOf(event), purpose: 'sso' })
    setResponseStatus(event, answer.status)
    setResponseHeader(event, 'content-type', answer.status === 200 ? 'application/samlmetadata+xml; charset=utf-8' : 'application/json; charset=utf-8')
    return Buffer.from(answer.body).toString('utf8')
  } catch (error) {
    if (!(error instanceof IamUnavailableError)) throw error
    setResponseStatus(event, 503)
    setResponseHeader(event, 'retry-after', 5)
    return ''
  }
}

/** GET /sso/saml/:connectionId/start?returnTo=: 302 to the identity provider with an AuthnRequest. */
export async function startSamlSignIn(event: H3Event): Promise<void> {
  const path = forwardablePath(event)
  if (!path) return redirectToSsoError(event, 'sso_connection_not_found')
  const res = await callSso<{ data?: { redirectUrl?: unknown } }>(event, { method: 'GET', path: path.split('?')[0]!, query: Object.fromEntries(new URL(path, 'http://x').searchParams) })
  if (!res) return redirectToSsoError(event, 'sso_unavailable')
  const target = res.body?.data?.redirectUrl
  if (res.status !== 200 || typeof target !== 'string' || !/^https?:\/\//.test(target)) return redirectToSsoError(event, codeOf(res.body))
  setResponseHeader(event, 'cache-control', 'no-store')
  return sendRedirect(event, target, 302)
}

interface AcsSuccess {
  accessToken: string
  accessIat: number
  expiresInMs: number
  returnTo: string
  secondFactor?: { challenge?: unknown }
}

/** The sign-in page's code for a device cookie the IAM could not hand out (unreachable: try again; anything else: failed). */
const CANARY_FAILURES: Partial<Record<OAuthRedirectError, string>> = { iam_unavailable: 'sso_unavailable' }

/** POST /sso/saml/:connectionId/acs: the IdP's form post, verified by the IAM, then the session. */
export async function consumeSamlResponse(event: H3Event): Promise<unknown> {
  const path = forwardablePath(event)
  if (!path) return redirectToSsoError(event, 'sso_connection_not_found')
  const form = await readBody<Record<string, unknown>>(event).catch(() => null)
  const samlResponse = form?.['SAMLResponse']
  const relayState = form?.['RelayState']
  if (typeof samlResponse !== 'string' || samlResponse.length === 0) return redirectToSsoError(event, 'saml_response_invalid')
  const canary = await ensureCanary(event)
  if (!canary.ok) return redirectToSsoError(event, CANARY_FAILURES[canary.code] ?? 'sso_failed')
  forwardSetCookies(event, canary.setCookies)
  const res = await callSso<AcsSuccess>(event, {
    method: 'POST',
    path,
    body: { SAMLResponse: samlResponse, ...(typeof relayState === 'string' && relayState.length <= 1024 ? { RelayState: relayState } : {}) },
    cookies: { canary_id: canary.canary },
  })
  if (!res) return redirectToSsoError(event, 'sso_unavailable')
  const body = res.body
  // returnTo is a path of this site (the IAM's safeReturnTo), kept relative: the page moves on within this origin
  const returnTo = typeof body?.returnTo === 'string' && /^\/(?![/\\])/.test(body.returnTo) ? body.returnTo : '/'
  if (res.status === 200 && typeof body?.secondFactor?.challenge === 'string' && /^[A-Za-z0-9_-]{43}$/.test(body.secondFactor.challenge)) {
    // the sign-in page asks for the step and then goes where the person was going (its returnTo)
    const query = returnTo === '/' ? '' : `?returnTo=${encodeURIComponent(returnTo)}`
    return sendPage(event, `/login${query}#second-factor=${body.secondFactor.challenge}`)
  }
  if (res.status !== 201 || !body || typeof body.accessToken !== 'string') {
    useGatewayLog().info('sso: sign-in refused', { requestId: event.context.requestId, status: res.status, code: codeOf(body) })
    return redirectToSsoError(event, codeOf(body))
  }
  setAccessCookies(event, { accessToken: body.accessToken, accessIat: body.accessIat, expiresInMs: body.expiresInMs })
  forwardSetCookies(event, res.setCookies)
  return sendPage(event, returnTo)
}

function sendPage(event: H3Event, target: string): string {
  const page = renderSuccessPage(target, 'your company sign-in')
  setResponseStatus(event, 200)
  setResponseHeaders(event, page.headers)
  return page.html
}
