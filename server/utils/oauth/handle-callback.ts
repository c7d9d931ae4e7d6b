/**
 * GET and POST /oauth/callback/:provider (gateway.md, callback handler): the validation step
 * (validate-callback.ts), then the success step: email resolution, extra user info merged with
 * mode drop, the IAM login, the session cookies and the success page. The flow cookies are
 * cleared first, so every outcome (redirect, 400, success) carries the clearing headers.
 */
import { getRouterParam, setResponseHeader, setResponseHeaders, setResponseStatus, type H3Event } from 'h3'
import { forwardSetCookies, setAccessCookies } from '../bff/cookies'
import { gatewayNow } from '../clock'
import { useCookieSecret } from './cookie-secret'
import { clearFlowCookies, readFlowCookies, usesFormPost } from './flow-cookies'
import { ensureCanary, loginAtIam } from './iam-calls'
import { logOAuth } from './log'
import { findProvider, type RegisteredProvider } from './registry'
import { answerStatus, redirectWithError } from './respond'
import { renderSuccessPage } from './success-page'
import { countOAuthOutcome } from '../metrics'
import { collectExtraUserInfo, mergeDrop, resolveEmail, withResolvedEmail } from './user-profile'
import { validateCallback } from './validate-callback'

async function successStep(
  event: H3Event,
  { config: provider, callbacks }: RegisteredProvider,
  { accessToken, userData, device }: { accessToken: string; userData: Record<string, unknown>; device: string },
): Promise<unknown> {
  const ctx = { provider, user: Object.freeze({ ...userData }) }
  const email = await resolveEmail(userData, accessToken, callbacks, ctx)
  if (!email.ok) {
    return email.code === 'email_missing' ? answerStatus(event, 400, 'email_missing') : redirectWithError(event, provider, email.code)
  }
  const extra = await collectExtraUserInfo(accessToken, callbacks, ctx)
  if (!extra.ok) return redirectWithError(event, provider, extra.code)
  const user = mergeDrop(withResolvedEmail(userData, email.email, !!callbacks.emailCallBack), extra.extras, (key, index) =>
    logOAuth('warn', 'extra user info key dropped (already set)', { provider: provider.name, key, callback: index }),
  )

  const canary = await ensureCanary(event, device)
  if (!canary.ok) return redirectWithError(event, provider, canary.code)
  forwardSetCookies(event, canary.setCookies)

  const login = await loginAtIam(event, provider.name, user, canary.canary)
  if (!login.ok) return redirectWithError(event, provider, login.error, login.retry)
  let target = new URL(provider.redirectUrlOnSuccess).href
  if ('secondFactor' in login) {
    // The provider stood in for the password; the second factor is still asked. The challenge rides
    // in the fragment, which never reaches a server or a Referer, to the login page's second step.
    target = new URL(`/login#second-factor=${login.secondFactor.challenge}`, target).href
  } else {
    // __Secure-a / a-iat with the BFF's attributes (HttpOnly, Secure, SameSite=Strict, Path=/), and
    // the IAM's own Set-Cookie headers (the `session` refresh cookie) verbatim
    setAccessCookies(event, login)
    forwardSetCookies(event, login.setCookies)
  }
  countOAuthOutcome('ok')
  const page = renderSuccessPage(target, provider.displayName ?? provider.name)
  setResponseStatus(event, 200)
  setResponseHeaders(event, page.headers)
  return page.html
}

/** The callback handler; `params` is the query (GET) or the form body (POST). */
export async function handleCallback(event: H3Event, params: URLSearchParams): Promise<unknown> {
  const registered = findProvider(getRouterParam(event, 'provider') ?? '')
  if (!registered) return answerStatus(event, 404, 'unknown_provider')
  const provider = registered.config
  const cookies = readFlowCookies(event, provider)
  clearFlowCookies(event, provider)
  // only a provider configured for response_mode=form_post answers with a POST; for the others a
  // POST is not an authorization response (and their SameSite=Lax cookies would not come with it)
  if (event.method === 'POST' && !usesFormPost(provider)) {
    setResponseHeader(event, 'allow', 'GET')
    return answerStatus(event, 405, 'method_not_allowed')
  }

  const result = await validateCallback({ provider, params, cookies, cookieSecret: useCookieSecret(), nowMs: gatewayNow() })
  if (!result.ok) {
    return 'status' in result ? answerStatus(event, result.status, result.error) : redirectWithError(event, provider, result.redirect)
  }
  // gateway.md: the request context after the validation step
  event.context['provider'] = provider
  event.context['userData'] = result.userData
  event.context['accessToken'] = result.accessToken
  return successStep(event, registered, result)
}
