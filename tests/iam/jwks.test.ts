import { createLocalJWKSet, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, signupUser } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, jwt: { access_tokens: { issuer: 'https://iam.example', audience: 'https://app.example' } } } })
}, 240_000)
afterAll(() => iam?.stop())

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
    expect(payload).toMatchObject({ sub: expect.stringMatching(/^\d+$/), sid: expect.any(String), jti: expect.any(String), visitor: expect.any(String), roles: ['user'] })
  })

  it('keeps the same key across requests (generated once and kept in the database)', async () => {
    const a = await (await fetch(`${iam.url}/.well-known/jwks.json`)).json()
    const b = await (await fetch(`${iam.url}/.well-known/jwks.json`)).json()
    expect(b).toEqual(a)
  })
})
