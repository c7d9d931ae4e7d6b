/**
 * GET /oauth/:provider (gateway.md, redirect handler): make sure the browser has a canary_id (the
 * IAM's GET /check), load the provider metadata, store state / PKCE verifier / nonce in the flow
 * cookies and redirect to the authorization endpoint.
 */
import { getRouterParam, sendRedirect, setResponseHeader, type H3Event } from 'h3'
import { forwardSetCookies } from '../bff/cookies'
import { gatewayNow } from '../clock'
import { getAuthorizationServer } from './authorization-server'
import { buildAuthorizationRequest } from './authorize'
import { useCookieSecret } from './cookie-secret'
import { setFlowCookies } from './flow-cookies'
import { ensureCanary } from './iam-calls'
import { logOAuth } from './log'
import { findProvider } from './registry'
import { answerStatus, redirectWithError } from './respond'

/** The redirect handler. */
export async function startLogin(event: H3Event): Promise<unknown> {
  const registered = findProvider(getRouterParam(event, 'provider') ?? '')
  if (!registered) return answerStatus(event, 404, 'unknown_provider')
  const provider = registered.config

  const canary = await ensureCanary(event)
  if (!canary.ok) return redirectWithError(event, provider, canary.code)
  forwardSetCookies(event, canary.setCookies)

  let as
  try {
    as = await getAuthorizationServer(provider)
  } catch (error) {
    logOAuth('error', 'provider metadata unavailable', { provider: provider.name, reason: (error as Error).message })
    return redirectWithError(event, provider, 'provider_unavailable')
  }
  const request = await buildAuthorizationRequest(provider, as, useCookieSecret(), gatewayNow(), canary.canary)
  setFlowCookies(event, provider, request.cookies)
  setResponseHeader(event, 'cache-control', 'no-store')
  return sendRedirect(event, request.url.href, 302)
}
