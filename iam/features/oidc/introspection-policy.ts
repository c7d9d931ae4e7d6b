/**
 * Who may learn what about a token at the introspection endpoint (RFC 7662). The RFC leaves the
 * rule to the authorization server (section 2.1: the endpoint requires authorization, against
 * token scanning; section 2.2: a caller not allowed to introspect a particular token gets
 * `"active": false`), and oidc-provider's default (marked as one to change) lets any confidential
 * client introspect any token: a third-party app or a client-credentials worker would read the
 * subject, scopes and client of every other client's access and refresh tokens.
 *
 * The rule, one function for both ways an introspection is answered (the provider's
 * `features.introspection.allowedPolicy` in provider.ts, and the one-statement path in
 * iam/fast/introspection.ts, which routes/oidc hands this same function), so the two cannot decide
 * differently:
 * - a client may introspect its own tokens (the token's `client_id` is the caller's);
 * - a resource server may introspect the access tokens issued for it: the caller authenticated
 *   (a public client proves nothing but its id), the token is an access token (a refresh token
 *   never travels to an API), and its audience (`aud`: the resource indicator it was issued for,
 *   RFC 8707) is one of the resource servers whose `introspectionClients` name the caller.
 * Everything else is answered `{ "active": false }`, exactly as an unknown token is.
 *
 * Why a list in the resource server's configuration rather than a client attribute: resource
 * servers are declared there (`oidc.resourceServers`, with the audience their tokens carry), only
 * an operator writes it, and nothing a client registers (dynamic registration included) can make
 * it the audience of someone else's tokens.
 */
import type { IamConfig } from '../../lib/config-schema'

type ResourceServers = IamConfig['oidc']['resourceServers']

export interface IntrospectionCaller {
  clientId: string
  /** it proved who it is (a client secret, ...): not a public client (`token_endpoint_auth_method: none`) */
  authenticated: boolean
}

export interface IntrospectedToken {
  /** an access token (AccessToken, ClientCredentials), not a refresh token */
  accessToken: boolean
  /** the client it was issued to */
  clientId: unknown
  /** its audience: a resource indicator, or none (a token for userinfo) */
  aud: unknown
}

export type IntrospectionPolicy = (caller: IntrospectionCaller, token: IntrospectedToken) => boolean

/** For each client named in `introspectionClients`, the audiences whose access tokens it may introspect. */
function audiencesByClient(resourceServers: ResourceServers): ReadonlyMap<string, ReadonlySet<string>> {
  const byClient = new Map<string, Set<string>>()
  for (const server of resourceServers) {
    for (const clientId of server.introspectionClients) {
      const audiences = byClient.get(clientId) ?? new Set<string>()
      audiences.add(server.indicator)
      byClient.set(clientId, audiences)
    }
  }
  return byClient
}

const built = new WeakMap<ResourceServers, IntrospectionPolicy>()

/** The rule for this configuration (made once per configuration: the one-statement path asks on every request). */
export function introspectionPolicy(resourceServers: ResourceServers): IntrospectionPolicy {
  const known = built.get(resourceServers)
  if (known) return known
  const audiences = audiencesByClient(resourceServers)
  const policy: IntrospectionPolicy = (caller, token) => {
    if (token.clientId === caller.clientId) return true
    if (!caller.authenticated || !token.accessToken) return false
    const mine = audiences.get(caller.clientId)
    if (!mine) return false
    const { aud } = token
    // oidc-provider issues one audience per access token; a stored list is read as any of them
    return typeof aud === 'string' ? mine.has(aud) : Array.isArray(aud) && aud.some((a) => typeof a === 'string' && mine.has(a))
  }
  built.set(resourceServers, policy)
  return policy
}
