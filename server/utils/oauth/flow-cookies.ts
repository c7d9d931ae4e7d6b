/**
 * The three short-lived flow cookies of gateway.md: `state{name}` (signed), `pkce_v{name}` and
 * `nonce{name}` (opaque, 256-bit random). HttpOnly, Secure, Path=/, Max-Age 180 s; SameSite=Lax so
 * they come back on the provider's top-level GET redirect, or None when the provider answers with a
 * cross-site form POST (response_mode=form_post), which Lax cookies would not accompany.
 */
import { deleteCookie, getCookie, setCookie, type H3Event } from 'h3'
import type { ProviderConfig } from '../gateway-config'
import { FLOW_COOKIE_TTL_MS } from './state-cookie'

export interface FlowCookieNames {
  state: string
  pkce: string
  nonce: string
}

/** Cookie names for a provider (gateway.md: `{name}` is the provider name). */
export function flowCookieNames(providerName: string): FlowCookieNames {
  return { state: `state${providerName}`, pkce: `pkce_v${providerName}`, nonce: `nonce${providerName}` }
}

/** True when the provider posts its authorization response (response_mode=form_post). */
export function usesFormPost(provider: ProviderConfig): boolean {
  return provider.extraAuthParams['response_mode'] === 'form_post'
}

function attributes(provider: ProviderConfig) {
  return {
    httpOnly: true,
    secure: true,
    path: '/',
    sameSite: usesFormPost(provider) ? ('none' as const) : ('lax' as const),
  }
}

/** Sets the flow cookies that have a value. */
export function setFlowCookies(
  event: H3Event,
  provider: ProviderConfig,
  values: { state: string; pkceVerifier?: string; nonce?: string },
): void {
  const names = flowCookieNames(provider.name)
  const attrs = { ...attributes(provider), maxAge: FLOW_COOKIE_TTL_MS / 1000 }
  setCookie(event, names.state, values.state, attrs)
  if (values.pkceVerifier) setCookie(event, names.pkce, values.pkceVerifier, attrs)
  if (values.nonce) setCookie(event, names.nonce, values.nonce, attrs)
}

/** The flow cookies as the browser sent them. */
export function readFlowCookies(event: H3Event, provider: ProviderConfig): { state?: string; pkceVerifier?: string; nonce?: string } {
  const names = flowCookieNames(provider.name)
  return { state: getCookie(event, names.state), pkceVerifier: getCookie(event, names.pkce), nonce: getCookie(event, names.nonce) }
}

/** Expires all three flow cookies (gateway.md: cleared whatever the outcome). */
export function clearFlowCookies(event: H3Event, provider: ProviderConfig): void {
  const names = flowCookieNames(provider.name)
  for (const name of [names.state, names.pkce, names.nonce]) deleteCookie(event, name, attributes(provider))
}
