import { SignJWT, UnsecuredJWT, base64url, exportJWK, generateKeyPair } from 'jose'
import { describe, expect, it } from 'vitest'
import { signAccessToken, verifyAccessToken, type AccessTokenSettings } from '../../iam/features/tokens/access-token'
import { buildKeyRing, generateSigningJwk, loadKeyRing, type KeyRing } from '../../iam/features/tokens/signing-keys'
import { createVerifiedTokens } from '../../iam/features/tokens/verified-tokens'

const settings: AccessTokenSettings = { issuer: 'https://iam.test', audience: 'https://app.test', expiresInMs: 15 * 60_000 }
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0)
const SUBJECT = '0b6c1d9e-3f43-4a57-9d0e-7c0a4c1f5e21'
const claims = { subject: SUBJECT, sessionId: 'fam-1', visitor: 'v-1', roles: ['user'] }

async function ring(rows?: Awaited<ReturnType<typeof generateSigningJwk>>[]): Promise<KeyRing> {
  const keys = rows ?? [await generateSigningJwk()]
  return buildKeyRing(keys.map((k) => ({ ...k, retiredAt: null })), settings.expiresInMs, NOW)
}

describe('access tokens', () => {
  it('carries iss, aud, sub (string), sid, jti, visitor, roles, iat, exp and a kid header', async () => {
    const r = await ring()
    const { token, jti, accessIat } = await signAccessToken(r, settings, claims, NOW)
    const result = await verifyAccessToken(r, settings, token, NOW + 1000)
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.payload).toMatchObject({
      iss: settings.issuer, aud: settings.audience, sub: SUBJECT, sid: 'fam-1', jti, visitor: 'v-1', roles: ['user'],
      iat: Math.floor(NOW / 1000), exp: Math.floor((NOW + settings.expiresInMs) / 1000),
    })
    expect(accessIat).toBe(NOW)
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())
    expect(header).toMatchObject({ alg: 'EdDSA', kid: r.current.kid })
  })

  it('rejects an expired token', async () => {
    const r = await ring()
    const { token } = await signAccessToken(r, settings, claims, NOW)
    expect(await verifyAccessToken(r, settings, token, NOW + settings.expiresInMs + 61_000)).toEqual({ ok: false, code: 'expired' })
  })

  it('rejects a wrong audience and a wrong issuer', async () => {
    const r = await ring()
    const { token } = await signAccessToken(r, { ...settings, audience: 'https://other.test' }, claims, NOW)
    expect((await verifyAccessToken(r, settings, token, NOW)).ok).toBe(false)
    const { token: t2 } = await signAccessToken(r, { ...settings, issuer: 'https://evil.test' }, claims, NOW)
    expect((await verifyAccessToken(r, settings, t2, NOW)).ok).toBe(false)
  })

  it('rejects a tampered payload', async () => {
    const r = await ring()
    const { token } = await signAccessToken(r, settings, claims, NOW)
    const [h, p, s] = token.split('.')
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString())
    payload.roles = ['admin']
    const forged = [h, base64url.encode(JSON.stringify(payload)), s].join('.')
    expect(await verifyAccessToken(r, settings, forged, NOW)).toEqual({ ok: false, code: 'invalid' })
  })

  it('rejects alg none, even with our kid', async () => {
    const r = await ring()
    const unsecured = new UnsecuredJWT({ sid: 'fam-1', visitor: 'v', roles: ['admin'] })
      .setIssuer(settings.issuer).setAudience(settings.audience).setSubject(SUBJECT).setJti('x').setIssuedAt().setExpirationTime('1h').encode()
    const [, payload] = unsecured.split('.')
    const header = base64url.encode(JSON.stringify({ alg: 'none', kid: r.current.kid }))
    expect((await verifyAccessToken(r, settings, `${header}.${payload}.`, NOW)).ok).toBe(false)
  })

  it('rejects HS256 signed with the public key as the HMAC secret (algorithm confusion)', async () => {
    const r = await ring()
    const publicJwk = r.jwks.keys[0]!
    const secret = new TextEncoder().encode(JSON.stringify(publicJwk))
    const forged = await new SignJWT({ sid: 'fam-1', visitor: 'v', roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256', kid: r.current.kid })
      .setIssuer(settings.issuer).setAudience(settings.audience).setSubject(SUBJECT).setJti('x').setIssuedAt(Math.floor(NOW / 1000)).setExpirationTime(Math.floor(NOW / 1000) + 600)
      .sign(secret)
    expect(await verifyAccessToken(r, settings, forged, NOW)).toEqual({ ok: false, code: 'invalid' })
  })

  it('rejects a token signed by a foreign Ed25519 key, with or without a kid we know', async () => {
    const r = await ring()
    const { privateKey } = await generateKeyPair('Ed25519')
    const sign = (kid: string) =>
      new SignJWT({ sid: 'fam-1', visitor: 'v', roles: ['user'] })
        .setProtectedHeader({ alg: 'EdDSA', kid })
        .setIssuer(settings.issuer).setAudience(settings.audience).setSubject(SUBJECT).setJti('x').setIssuedAt(Math.floor(NOW / 1000)).setExpirationTime(Math.floor(NOW / 1000) + 600)
        .sign(privateKey)
    expect(await verifyAccessToken(r, settings, await sign(r.current.kid), NOW)).toEqual({ ok: false, code: 'invalid' })
    expect(await verifyAccessToken(r, settings, await sign('foreign'), NOW)).toEqual({ ok: false, code: 'unknown_key' })
  })

  it('rejects a token whose typ header names another kind of JWT, signed by our own key', async () => {
    const r = await ring()
    const privateKey = r.current.privateKey
    const sign = (typ: string) =>
      new SignJWT({ sid: 'fam-1', visitor: 'v', roles: ['user'] })
        .setProtectedHeader({ alg: 'EdDSA', kid: r.current.kid, typ })
        .setIssuer(settings.issuer).setAudience(settings.audience).setSubject(SUBJECT).setJti('x').setIssuedAt(Math.floor(NOW / 1000)).setExpirationTime(Math.floor(NOW / 1000) + 600)
        .sign(privateKey)
    expect(await verifyAccessToken(r, settings, await sign('JWT'), NOW)).toEqual({ ok: false, code: 'invalid' })
    expect((await verifyAccessToken(r, settings, await sign('application/at+jwt'), NOW)).ok).toBe(true)
  })

  it('rejects a crit header and characters outside base64url in any segment, even with a valid signature', async () => {
    const r = await ring()
    const crit = await new SignJWT({ sid: 'fam-1', visitor: 'v', roles: ['user'] })
      .setProtectedHeader({ alg: 'EdDSA', kid: r.current.kid, crit: ['b64'], b64: true })
      .setIssuer(settings.issuer).setAudience(settings.audience).setSubject(SUBJECT).setJti('x').setIssuedAt(Math.floor(NOW / 1000)).setExpirationTime(Math.floor(NOW / 1000) + 600)
      .sign(r.current.privateKey)
    expect(await verifyAccessToken(r, settings, crit, NOW)).toEqual({ ok: false, code: 'invalid' })
    const { token } = await signAccessToken(r, settings, claims, NOW)
    expect(await verifyAccessToken(r, settings, `${token}!`, NOW)).toEqual({ ok: false, code: 'invalid' })
    expect(await verifyAccessToken(r, settings, `${token}.x`, NOW)).toEqual({ ok: false, code: 'invalid' })
  })

  it('checks expiry on every verification of the same token, not only the first', async () => {
    const r = await ring()
    const verified = createVerifiedTokens()
    const { token } = await signAccessToken(r, settings, claims, NOW)
    expect((await verifyAccessToken(r, settings, token, NOW + 1000, verified)).ok).toBe(true)
    expect(verified.get(token)).toBeDefined()
    expect(await verifyAccessToken(r, settings, token, NOW + settings.expiresInMs, verified)).toEqual({ ok: false, code: 'expired' })
    expect((await verifyAccessToken(r, settings, token, NOW + 2000, verified)).ok).toBe(true)
  })

  it('checks issuer and audience on every verification of a cached token', async () => {
    const r = await ring()
    const verified = createVerifiedTokens()
    const { token } = await signAccessToken(r, settings, claims, NOW)
    expect((await verifyAccessToken(r, settings, token, NOW, verified)).ok).toBe(true)
    expect(await verifyAccessToken(r, { ...settings, audience: 'https://other.test' }, token, NOW, verified)).toEqual({ ok: false, code: 'invalid' })
    expect(await verifyAccessToken(r, { ...settings, issuer: 'https://other.test' }, token, NOW, verified)).toEqual({ ok: false, code: 'invalid' })
  })

  it('stops accepting a verified token once its key has left the ring', async () => {
    const oldKey = await generateSigningJwk()
    const before = await buildKeyRing([{ ...oldKey, retiredAt: null }], settings.expiresInMs, NOW)
    const verified = createVerifiedTokens()
    const { token } = await signAccessToken(before, settings, claims, NOW)
    expect((await verifyAccessToken(before, settings, token, NOW, verified)).ok).toBe(true)
    const other = await ring()
    expect(await verifyAccessToken(other, settings, token, NOW, verified)).toEqual({ ok: false, code: 'unknown_key' })
    // same kid, another key (a ring that names the kid with different key material)
    const swapped: KeyRing = { ...other, verifiers: new Map([[before.current.kid, other.verifiers.get(other.current.kid)!]]) }
    expect(await verifyAccessToken(swapped, settings, token, NOW, verified)).toEqual({ ok: false, code: 'invalid' })
  })

  it('keeps at most the bound of verified tokens, the oldest out first, and only tokens whose signature verified', async () => {
    const r = await ring()
    const verified = createVerifiedTokens(2)
    const tokens = await Promise.all([1, 2, 3].map(async () => (await signAccessToken(r, settings, claims, NOW)).token))
    for (const token of tokens) expect((await verifyAccessToken(r, settings, token, NOW, verified)).ok).toBe(true)
    expect(verified.size).toBe(2)
    expect(verified.get(tokens[0]!)).toBeUndefined()
    expect(verified.get(tokens[2]!)).toBeDefined()
    const [h, p, s] = tokens[1]!.split('.')
    // the first signature byte changed (its top six bits are the first character)
    const forged = `${h}.${p}.${s!.startsWith('A') ? 'B' : 'A'}${s!.slice(1)}`
    expect(await verifyAccessToken(r, settings, forged, NOW, verified)).toEqual({ ok: false, code: 'invalid' })
    expect(verified.get(forged)).toBeUndefined()
  })

  it('rejects garbage as malformed', async () => {
    const r = await ring()
    expect(await verifyAccessToken(r, settings, 'not.a.jwt', NOW)).toEqual({ ok: false, code: 'malformed' })
    expect(await verifyAccessToken(r, settings, '', NOW)).toEqual({ ok: false, code: 'malformed' })
  })
})

describe('signing key rotation', () => {
  it('signs with the newest key and keeps verifying tokens of a retired key until they expire', async () => {
    const oldKey = await generateSigningJwk()
    const before = await buildKeyRing([{ ...oldKey, retiredAt: null }], settings.expiresInMs, NOW)
    const { token } = await signAccessToken(before, settings, claims, NOW)
    const newKey = await generateSigningJwk()
    const rows = [{ ...oldKey, retiredAt: new Date(NOW + 1000) }, { ...newKey, retiredAt: null }]
    const after = await buildKeyRing(rows, settings.expiresInMs, NOW + 2000)
    expect(after.current.kid).toBe(newKey.kid)
    expect(after.jwks.keys.map((k) => k.kid).sort()).toEqual([oldKey.kid, newKey.kid].sort())
    expect((await verifyAccessToken(after, settings, token, NOW + 2000)).ok).toBe(true)
    // once every token the old key signed has expired, it leaves the ring and the JWKS
    const later = await buildKeyRing(rows, settings.expiresInMs, NOW + 1000 + settings.expiresInMs + 1)
    expect(later.jwks.keys.map((k) => k.kid)).toEqual([newKey.kid])
  })

  it('publishes public keys only', async () => {
    const r = await ring()
    for (const key of r.jwks.keys) {
      expect(key).not.toHaveProperty('d')
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' })
    }
    const exported = await exportJWK((await generateKeyPair('Ed25519', { extractable: true })).publicKey)
    expect(exported.kty).toBe('OKP')
  })
})

describe('signing keys from config (secrets.accessTokenKeys)', () => {
  const jwt = { access_tokens: { ...settings }, refresh_tokens: {} } as never
  it('signs with the first key and verifies tokens of every listed key (rotation by config)', async () => {
    const a = await generateSigningJwk()
    const b = await generateSigningJwk()
    const before = await loadKeyRing(null as never, { secrets: { accessTokenKeys: [a.privateJwk] }, jwt } as never, NOW)
    const { token } = await signAccessToken(before, settings, claims, NOW)
    const after = await loadKeyRing(null as never, { secrets: { accessTokenKeys: [b.privateJwk, a.privateJwk] }, jwt } as never, NOW)
    expect(after.current.kid).toBe(b.kid)
    expect((await verifyAccessToken(after, settings, token, NOW)).ok).toBe(true)
  })
  it('refuses a key that is not an Ed25519 private JWK', async () => {
    await expect(loadKeyRing(null as never, { secrets: { accessTokenKeys: [{ kty: 'oct', k: 'abc' }] }, jwt } as never, NOW)).rejects.toThrow(/Ed25519/)
  })
})
