import { describe, expect, it } from 'vitest'
import { answeredDirectly } from '../../server/utils/provider-hop'

describe('the gateway answers the provider directly only on its machine endpoints, by exact raw path', () => {
  it('takes the endpoints a client calls, with or without a query', () => {
    for (const path of ['/oidc/token', '/oidc/token/introspection', '/oidc/token/revocation', '/oidc/jwks', '/oidc/me', '/oidc/request', '/oidc/device/auth', '/oidc/reg', '/oidc/.well-known/openid-configuration']) {
      expect(answeredDirectly(path), path).toBe(true)
      expect(answeredDirectly(`${path}?x=1`), `${path}?x=1`).toBe(true)
    }
  })

  it('leaves every page a browser navigates to on the page path: sign-in, consent, sign-out, device code entry', () => {
    for (const path of ['/oidc/auth', '/oidc/auth?client_id=a', '/oidc/session/end', '/oidc/session/end/confirm', '/oidc/device', '/oidc/interaction/abc', '/oidc', '/oidc/']) {
      expect(answeredDirectly(path), path).toBe(false)
    }
  })

  it('leaves encoded, dotted and extended variants to the page path, whose canonical check refuses them', () => {
    for (const path of ['/oidc/%74oken', '/oidc/./token', '/oidc/token/', '/oidc/token/../jwks', '/oidc//token', '/OIDC/token', '/oidc/token;x', '/oidc/token2', '/oidc/reg/abc', '/x/oidc/token']) {
      expect(answeredDirectly(path), path).toBe(false)
    }
  })
})
