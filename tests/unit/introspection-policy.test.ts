/**
 * iam/features/oidc/introspection-policy.ts: the one rule both introspection paths ask. The cases
 * only the provider's path meets (a public caller, a refresh token) are here; the one-statement
 * path's decisions on stored rows are in fast-introspection.test.ts, both paths through the front
 * door in tests/gateway/introspection.security.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { introspectionPolicy } from '../../iam/features/oidc/introspection-policy'

const LEDGER = 'https://ledger.example/'
const ORDERS = 'https://orders.example/'
const servers = [
  { indicator: LEDGER, scopes: [], accessTokenFormat: 'opaque' as const, introspectionClients: ['ledger-api', 'audit'] },
  { indicator: ORDERS, scopes: [], accessTokenFormat: 'opaque' as const, introspectionClients: ['audit'] },
]
const may = introspectionPolicy(servers)
const confidential = (clientId: string) => ({ clientId, authenticated: true })
const accessToken = (clientId: string, aud?: unknown) => ({ accessToken: true, clientId, aud })

describe('who may introspect a token', () => {
  it('its own client, confidential or public, any kind of token', () => {
    expect(may(confidential('shop'), accessToken('shop'))).toBe(true)
    expect(may(confidential('shop'), { accessToken: false, clientId: 'shop', aud: undefined })).toBe(true)
    expect(may({ clientId: 'spa', authenticated: false }, accessToken('spa'))).toBe(true)
  })

  it('a client that some resource server names: the access tokens whose audience is that server, and no others', () => {
    expect(may(confidential('ledger-api'), accessToken('shop', LEDGER))).toBe(true)
    expect(may(confidential('ledger-api'), accessToken('shop', [LEDGER]))).toBe(true)
    expect(may(confidential('ledger-api'), accessToken('shop', ORDERS))).toBe(false)
    expect(may(confidential('ledger-api'), accessToken('shop'))).toBe(false)
    expect(may(confidential('ledger-api'), accessToken('shop', 'ledger-api'))).toBe(false)
    // one client may be the client of several resource servers
    expect(may(confidential('audit'), accessToken('shop', LEDGER))).toBe(true)
    expect(may(confidential('audit'), accessToken('shop', ORDERS))).toBe(true)
  })

  it('never a refresh token, and never a public caller, whatever the audience', () => {
    expect(may(confidential('ledger-api'), { accessToken: false, clientId: 'shop', aud: LEDGER })).toBe(false)
    expect(may({ clientId: 'ledger-api', authenticated: false }, accessToken('shop', LEDGER))).toBe(false)
  })

  it('no other client: a third-party app or a worker learns nothing of another client\'s tokens', () => {
    for (const token of [accessToken('shop'), accessToken('shop', LEDGER), { accessToken: false, clientId: 'shop', aud: undefined }]) {
      expect(may(confidential('partner'), token)).toBe(false)
      expect(may(confidential('worker'), token)).toBe(false)
    }
    // a token whose client is missing is nobody's
    expect(may(confidential('partner'), { accessToken: true, clientId: undefined, aud: undefined })).toBe(false)
  })

  it('is made once per configuration', () => {
    expect(introspectionPolicy(servers)).toBe(may)
    expect(introspectionPolicy([])(confidential('ledger-api'), accessToken('shop', LEDGER))).toBe(false)
  })
})
