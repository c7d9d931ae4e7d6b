/**
 * Authorization server metadata per provider. OIDC: discovery (OpenID Connect Discovery 1.0
 * section 4; an issuer with a path such as https://host/realms/x keeps it, the well-known suffix
 * is appended after it) with the issuer checked by oauth4webapi (section 4.3). OAuth: the three
 * configured endpoints. Discovery results are a read-through cache with a short TTL; failures are
 * not cached, and concurrent misses share one request.
 */
import * as oauth from 'oauth4webapi'
import type { ProviderConfig } from '../gateway-config'
import { gatewayNow } from '../clock'
import { requestOptionsFor } from './http-options'

const DISCOVERY_TTL_MS = 10 * 60_000

const cache = new Map<string, { expiresAtMs: number; as: Promise<oauth.AuthorizationServer> }>()
// One JWKS cache object per provider: oauth4webapi keeps the fetched key set in it and refetches
// on an unknown `kid` (key rotation), so ID token checks do not fetch the JWKS on every login.
const jwksCaches = new Map<string, oauth.JWKSCacheInput>()

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const issuerUrl = new URL(issuer)
  const response = await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...requestOptionsFor(issuerUrl) })
  return oauth.processDiscoveryResponse(issuerUrl, response)
}

/** The provider's metadata; rejects when discovery fails. */
export function getAuthorizationServer(provider: ProviderConfig, nowMs = gatewayNow()): Promise<oauth.AuthorizationServer> {
  if (provider.kind === 'oauth') {
    return Promise.resolve({
      // plain OAuth 2.0 has no issuer identifier; the origin only names the server in errors
      issuer: new URL(provider.authorizationEndpoint).origin,
      authorization_endpoint: provider.authorizationEndpoint,
      token_endpoint: provider.tokenEndpoint,
      userinfo_endpoint: provider.userInfoEndpoint,
    })
  }
  const key = `${provider.name}\n${provider.issuer}`
  const hit = cache.get(key)
  if (hit && hit.expiresAtMs > nowMs) return hit.as
  const as = discover(provider.issuer)
  cache.set(key, { expiresAtMs: nowMs + DISCOVERY_TTL_MS, as })
  as.catch(() => {
    if (cache.get(key)?.as === as) cache.delete(key)
  })
  return as
}

/** The provider's JWKS cache object (see above). */
export function jwksCacheFor(provider: ProviderConfig): oauth.JWKSCacheInput {
  let entry = jwksCaches.get(provider.name)
  if (!entry) {
    entry = {}
    jwksCaches.set(provider.name, entry)
  }
  return entry
}

/** oauth4webapi client metadata for a provider. */
export function clientFor(provider: ProviderConfig): oauth.Client {
  return { client_id: provider.clientId }
}

/** The configured client authentication (gateway.md tokenAuthMethod). */
export function clientAuthFor(provider: ProviderConfig): oauth.ClientAuth {
  return provider.tokenAuthMethod === 'client_secret_post'
    ? oauth.ClientSecretPost(provider.clientSecret)
    : oauth.ClientSecretBasic(provider.clientSecret)
}
