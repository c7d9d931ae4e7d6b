import { createLocalJWKSet, jwtVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import { signupUser } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'

// the run's shared IAM: its config sets the issuer and audience pinned below
const iam = sharedIam()

describe('GET /.well-known/jwks.json', () => {
  it('serves public Ed25519 keys that verify issued access tokens (alg, iss, aud pinned)', async () => {
    const res = await fetch(`${iam.url}/.well-known/jwks.json`)
    expect(res.status).toBe(200)
    const jwks = (await res.json()) as { keys: Record<string, unknown>[] }
    expect(jwks.keys.length).toBeGreaterThan(0)
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String) })
      expect(key).not.toHaveProperty('d')
    }
    const s = await signupUser(iam, { client: { ip: '203.0.113.80' } })
    const { payload, protectedHeader } = await jwtVerify(s.accessToken, createLocalJWKSet(jwks as never), {
      algorithms: ['EdDSA'], issuer: 'https://iam.example', audience: 'https://app.example',
    })
    expect(protectedHeader.kid).toBe(jwks.keys[0]!.kid)
    expect(payload).toMatchObject({ sub: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), sid: expect.any(String), jti: expect.any(String), visitor: expect.any(String), roles: ['user'] })
  })

  it('keeps the same key across requests (generated once and kept in the database)', async () => {
    const a = await (await fetch(`${iam.url}/.well-known/jwks.json`)).json()
    const b = await (await fetch(`${iam.url}/.well-known/jwks.json`)).json()
    expect(b).toEqual(a)
  })
})
