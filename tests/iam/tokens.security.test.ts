import { SignJWT, base64url, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'

const ISS = 'https://iam.example'
const AUD = 'https://app.example'
let iam: IamServer
let configKey: JWK
let session: Session
let claims: Json
beforeAll(async () => {
  // the IAM signs with a key from config here, so the test can sign the forgeries an insider could
  const { privateKey } = await generateKeyPair('Ed25519', { extractable: true })
  configKey = { ...(await exportJWK(privateKey)), kid: 'config-key-1' }
  iam = await startIam({ config: { ...PROXY_CONFIG, secrets: { accessTokenKeys: [configKey] }, jwt: { access_tokens: { issuer: ISS, audience: AUD } } } })
  session = await signupUser(iam, { client: { ip: '203.0.113.110' } })
  claims = JSON.parse(Buffer.from(session.accessToken.split('.')[1]!, 'base64url').toString()) as Json
}, 240_000)
afterAll(() => iam?.stop())

const now = () => Math.floor(Date.now() / 1000)
const withToken = (token: string) => authedGet(iam, { ...session, accessToken: token })
const invalid = { ok: false, date: expect.any(String), error: 'Invalid access token', code: 'access_token_invalid' }

async function signWith(key: Parameters<SignJWT['sign']>[0], header: Json, over: Json = {}) {
  return new SignJWT({ ...claims, ...over }).setProtectedHeader(header as never).sign(key)
}

describe('access token verification (security)', () => {
  it('accepts the genuine token', async () => {
    expect((await withToken(session.accessToken)).status).toBe(200)
    expect(JSON.parse(Buffer.from(session.accessToken.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'EdDSA', kid: 'config-key-1' })
  })

  it('rejects alg none', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'none', kid: 'config-key-1' }))
    const payload = session.accessToken.split('.')[1]
    const res = await withToken(`${header}.${payload}.`)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(invalid)
  })

  it('rejects HS256 keyed with the public key (algorithm confusion)', async () => {
    const jwks = (await (await fetch(`${iam.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] }
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]))
    const res = await withToken(await signWith(secret, { alg: 'HS256', kid: 'config-key-1' }))
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(invalid)
  })

  it('rejects an expired token signed with the real key', async () => {
    const key = await importJWK(configKey, 'EdDSA')
    const res = await withToken(await signWith(key, { alg: 'EdDSA', kid: 'config-key-1' }, { iat: now() - 3600, exp: now() - 1800 }))
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Access token expired', code: 'access_token_expired' })
  })

  it('rejects a wrong audience or issuer signed with the real key', async () => {
    const key = await importJWK(configKey, 'EdDSA')
    expect((await withToken(await signWith(key, { alg: 'EdDSA', kid: 'config-key-1' }, { aud: 'https://other.example' }))).status).toBe(401)
    expect((await withToken(await signWith(key, { alg: 'EdDSA', kid: 'config-key-1' }, { iss: 'https://evil.example' }))).status).toBe(401)
  })

  it('rejects a tampered payload', async () => {
    const [h, p, s] = session.accessToken.split('.')
    const forged = base64url.encode(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), roles: ['admin'] }))
    const res = await withToken(`${h}.${forged}.${s}`)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(invalid)
  })

  it('rejects a token signed by a foreign key, under our kid or its own', async () => {
    const { privateKey } = await generateKeyPair('Ed25519')
    expect((await withToken(await signWith(privateKey, { alg: 'EdDSA', kid: 'config-key-1' }))).status).toBe(401)
    expect((await withToken(await signWith(privateKey, { alg: 'EdDSA', kid: 'attacker' }))).status).toBe(401)
  })
})
