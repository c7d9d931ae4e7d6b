/**
 * iam/fast/refresh-token.ts answers a refresh token grant itself only where it can answer exactly
 * as the provider would, and hands everything else to the provider (undefined): which requests,
 * clients, tokens, grants and accounts it answers, the access token row it stores, the ID token it
 * signs and the key it signs with. On a migrated database with real sealed client secrets, the
 * token and grant rows in the provider's stored form. tests/gateway/refresh-token-equivalence.test.ts
 * holds its answers to the provider's through the front door.
 */
import { randomBytes } from 'node:crypto'
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { createClient, openClientSecret } from '../../iam/features/oidc/clients'
import { oidcAccountOf } from '../../iam/features/oidc/accounts'
import { CLAIMS_SUPPORTED, ID_TOKEN_CLAIMS } from '../../iam/features/oidc/provider'
import { fastRefreshToken, type RefreshTokenDeps } from '../../iam/fast/refresh-token'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'
import { NOW as SEEDED_AT, reset } from './data-layer-cases'

// the seeded rows' time: Bob's ban runs an hour past it
const NOW = SEEDED_AT.getTime()
const NOW_S = NOW / 1000
const DAY_S = 86_400
const AT_TTL = 900
const ID_TTL = 3600
const ISSUER = 'https://id.example.test/oidc'
const FORM = 'application/x-www-form-urlencoded'
const config = { secrets: { totpKeys: [{ id: 'k1', key: randomBytes(32).toString('base64url') }] } }
// the seeded accounts (tests/unit/data-layer-cases.ts): Ann, and Bob, banned for another hour
const ANN = '00000000-0000-4000-8000-000000000001'
const BOB = '00000000-0000-4000-8000-000000000002'

async function privateJwk(alg: 'RS256' | 'ES256' | 'EdDSA', extra: Partial<JWK> = {}): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) })
  const jwk = await exportJWK(privateKey)
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), ...extra }
}
const publicOf = ({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...jwk }: JWK) => jwk

describe.each(KINDS)('the two-statement refresh token grant on $label', ({ kind, skip: kindAbsent }) => {
  const t = dataLayerDbForSuite(kind, kindAbsent)
  beforeAll(async () => {
    if (!kindAbsent) await reset(t.db)
  })
  let sweeps = 0
  let keys: JWK[] = []
  const deps = (over: Partial<RefreshTokenDeps> = {}): RefreshTokenDeps => ({
    db: t.db,
    now: NOW,
    issuer: ISSUER,
    openSecret: (clientId, sealed) => openClientSecret(config, clientId, sealed),
    account: (row) => oidcAccountOf(t.db, row, NOW),
    idTokenClaims: ID_TOKEN_CLAIMS,
    claimsSupported: CLAIMS_SUPPORTED,
    signingKeys: keys,
    accessTokenTtlSeconds: AT_TTL,
    idTokenTtlSeconds: ID_TTL,
    stored: () => void sweeps++,
    ...over,
  })
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
  const made = async (input: { grants?: Array<'refresh_token' | 'authorization_code' | 'client_credentials'>; authMethod?: 'client_secret_post'; metadata?: Record<string, unknown> } = {}) => {
    const { client, clientSecret } = await createClient({ db: t.db, config }, { name: 'Web', redirectUris: ['https://app.example/cb'], grants: input.grants ?? ['authorization_code', 'refresh_token'], ...(input.authMethod ? { authMethod: input.authMethod } : {}) })
    if (input.metadata) {
      const row = await t.db.selectFrom('oidc_clients').select('metadata').where('client_id', '=', client.clientId).executeTakeFirstOrThrow()
      const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata
      await t.db.updateTable('oidc_clients').set({ metadata: JSON.stringify({ ...metadata, ...input.metadata }) }).where('client_id', '=', client.clientId).execute()
    }
    return { id: client.clientId, secret: clientSecret! }
  }
  /** A grant and a refresh token of it in the provider's stored form (node_modules/oidc-provider models/grant.js, refresh_token.js). */
  const issued = async (clientId: string, over: { token?: Record<string, unknown>; grant?: Record<string, unknown>; row?: { expires_at?: Date; consumed_at?: Date }; noGrant?: boolean } = {}) => {
    const grantId = randomBytes(16).toString('base64url')
    const value = randomBytes(32).toString('base64url')
    const accountId = (over.token?.accountId as string | undefined) ?? ANN
    const grant = { iat: NOW_S - 60, exp: NOW_S + 14 * DAY_S, jti: grantId, kind: 'Grant', clientId, accountId, openid: { scope: 'openid offline_access profile' }, ...over.grant }
    const token = {
      iat: NOW_S - 60, exp: NOW_S + 14 * DAY_S, jti: value, kind: 'RefreshToken', clientId, gty: 'authorization_code', grantId, sessionUid: 'session-uid-1', expiresWithSession: false,
      accountId, amr: ['pwd'], authTime: NOW_S - 120, nonce: 'nonce-1', scope: 'openid offline_access', sid: 'sid-1', rotations: 0, iiat: NOW_S - 60, ...over.token,
    }
    const rows = [
      { model: 'RefreshToken', id: value, payload: JSON.stringify(token), grant_id: grantId, user_code: null, uid: null, account_id: accountId, expires_at: over.row?.expires_at ?? new Date((token.exp as number) * 1000), consumed_at: over.row?.consumed_at ?? null },
      ...(over.noGrant ? [] : [{ model: 'Grant', id: grantId, payload: JSON.stringify(grant), grant_id: grantId, user_code: null, uid: null, account_id: accountId, expires_at: new Date((grant.exp as number) * 1000), consumed_at: null }]),
    ]
    await t.db.insertInto('oidc_payloads').values(rows).execute()
    return { value, grantId }
  }
  const ask = (caller: { id: string; secret: string }, refreshToken: string, params: Record<string, string> = {}, over: { contentType?: string; post?: boolean; deps?: Partial<RefreshTokenDeps> } = {}) =>
    fastRefreshToken(deps(over.deps), {
      body: Buffer.from(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, ...params, ...(over.post ? { client_id: caller.id, client_secret: caller.secret } : {}) }).toString()),
      contentType: over.contentType ?? FORM,
      authorization: over.post ? undefined : basic(caller.id, caller.secret),
    })
  const accessTokens = async () => Number((await t.db.selectFrom('oidc_payloads').select((eb) => eb.fn.countAll<string>().as('n')).where('model', '=', 'AccessToken').executeTakeFirstOrThrow()).n)

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('answers a secret-authenticated grant of a token not due for rotation: the access token stored as the provider stores it, the same refresh token back, the ID token of the openid scope', async () => {
    keys = [await privateJwk('RS256')]
    const web = await made()
    const { value, grantId } = await issued(web.id)
    const before = sweeps
    const answer = await ask(web, value)
    expect(answer).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: AT_TTL, id_token: expect.any(String), refresh_token: value, scope: 'openid offline_access', token_type: 'Bearer' })
    expect(Object.keys(answer!)).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type'])
    expect(sweeps).toBe(before + 1)

    const row = await t.db.selectFrom('oidc_payloads').selectAll().where('model', '=', 'AccessToken').where('id', '=', answer!.access_token).executeTakeFirstOrThrow()
    const stored = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload
    // the grant's scope (openid offline_access profile) kept to the token's
    expect(stored).toEqual({ iat: NOW_S, exp: NOW_S + AT_TTL, jti: answer!.access_token, kind: 'AccessToken', clientId: web.id, gty: 'authorization_code refresh_token', grantId, sessionUid: 'session-uid-1', expiresWithSession: false, accountId: ANN, scope: 'openid offline_access', sid: 'sid-1' })
    expect([row.grant_id, row.account_id, row.consumed_at, row.expires_at?.getTime()]).toEqual([grantId, ANN, null, NOW + AT_TTL * 1000])

    const { payload, protectedHeader } = await compactVerify(answer!.id_token!, await importJWK(publicOf(keys[0]!), 'RS256'))
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: keys[0]!.kid })
    const claims = JSON.parse(Buffer.from(payload).toString('utf8'))
    // conformIdTokenClaims: the openid scope's claims (sub, amr) only, never the profile's name
    expect(claims).toEqual({ sub: ANN, amr: ['pwd'], nonce: 'nonce-1', sid: 'sid-1', aud: web.id, exp: NOW_S + ID_TTL, iat: NOW_S, iss: ISSUER })
    expect(Object.keys(claims)).toEqual(['sub', 'amr', 'nonce', 'sid', 'aud', 'exp', 'iat', 'iss'])
  })

  it.skipIf(kindAbsent)('answers without an ID token when the token has no openid scope, and a client_secret_post client only with its secret in the body', async () => {
    keys = [await privateJwk('RS256')]
    const poster = await made({ authMethod: 'client_secret_post' })
    const { value } = await issued(poster.id, { token: { scope: 'offline_access profile' } })
    expect(await ask(poster, value)).toBeUndefined()
    expect(await ask(poster, value, {}, { post: true })).toEqual({ access_token: expect.any(String), expires_in: AT_TTL, refresh_token: value, scope: 'offline_access profile', token_type: 'Bearer' })
  })

  it.skipIf(kindAbsent)("signs with the key the provider's keystore selects for the client's algorithm: the first of its type, one naming its alg before one that does not, a use alone not counting", async () => {
    const plainRsa = await privateJwk('RS256')
    const namedRsa = await privateJwk('RS256', { alg: 'RS256', use: 'sig' })
    const useOnlyRsa = await privateJwk('RS256', { use: 'sig' })
    const ec = await privateJwk('ES256')
    // the provider gives an EC P-256 key its only algorithm: this one named counts the same
    const namedEc = await privateJwk('ES256', { alg: 'ES256' })
    const ed = await privateJwk('EdDSA')
    const useOnlyEd = await privateJwk('EdDSA', { use: 'sig' })
    const cases: Array<[JWK[], string | undefined, JWK]> = [
      [[plainRsa, ec, namedRsa, ed], undefined, namedRsa],
      [[plainRsa, ec, namedRsa, ed], 'RS256', namedRsa],
      [[plainRsa, useOnlyRsa], 'RS256', plainRsa],
      [[ec, namedEc], 'ES256', ec],
      [[plainRsa, ec, namedRsa, ed], 'EdDSA', ed],
      [[ed, useOnlyEd], 'EdDSA', ed],
    ]
    for (const [held, alg, expected] of cases) {
      keys = held
      const web = await made(alg ? { metadata: { id_token_signed_response_alg: alg } } : {})
      const { value } = await issued(web.id)
      const answer = await ask(web, value)
      const header = decodeProtectedHeader(answer!.id_token!)
      expect({ alg, header }).toEqual({ alg, header: { alg: alg ?? 'RS256', kid: expected.kid } })
      await compactVerify(answer!.id_token!, await importJWK(publicOf(expected), alg ?? 'RS256'))
    }
  })

  it.skipIf(kindAbsent)('leaves to the provider every request, client, token, grant and account it would refuse, rotate or treat otherwise, and writes nothing for them', async () => {
    keys = [await privateJwk('RS256')]
    const web = await made()
    const other = await made()
    const noRefresh = await made({ grants: ['authorization_code'] })
    const dpopBound = await made({ metadata: { dpop_bound_access_tokens: true } })
    const encrypting = await made({ metadata: { id_token_encrypted_response_alg: 'RSA-OAEP' } })
    const fine = (await issued(web.id)).value
    const cases: Record<string, () => Promise<unknown>> = {
      'a wrong secret': () => ask({ id: web.id, secret: `${web.secret}x` }, fine),
      'an unknown client': () => ask({ id: 'no-such-client', secret: 'x' }, fine),
      'a client without the refresh grant': async () => ask(noRefresh, (await issued(noRefresh.id)).value),
      'a DPoP-bound client': async () => ask(dpopBound, (await issued(dpopBound.id)).value),
      'a client with an encrypted ID token': async () => ask(encrypting, (await issued(encrypting.id)).value),
      'another client\'s token': () => ask(other, fine),
      'an unknown token': () => ask(web, randomBytes(32).toString('base64url')),
      'a consumed token (a reuse: the provider revokes its grant)': async () => ask(web, (await issued(web.id, { row: { consumed_at: new Date(NOW - 1000) } })).value),
      'an expired token': async () => ask(web, (await issued(web.id, { token: { exp: NOW_S } })).value),
      'a token whose row expired': async () => ask(web, (await issued(web.id, { row: { expires_at: new Date(NOW) } })).value),
      'a token due for rotation (70% of its life passed)': async () => ask(web, (await issued(web.id, { token: { iat: NOW_S - 70, exp: NOW_S + 30 } })).value),
      'a token bound to a session': async () => ask(web, (await issued(web.id, { token: { expiresWithSession: true } })).value),
      'a DPoP-bound token': async () => ask(web, (await issued(web.id, { token: { jkt: 'thumbprint' } })).value),
      'a token with a resource': async () => ask(web, (await issued(web.id, { token: { resource: 'https://api.example/' } })).value),
      'a token with an ID token claims request': async () => ask(web, (await issued(web.id, { token: { claims: { id_token: { auth_time: { essential: true } } } } })).value),
      'a token without its grant': async () => ask(web, (await issued(web.id, { noGrant: true })).value),
      'an expired grant': async () => ask(web, (await issued(web.id, { grant: { exp: NOW_S } })).value),
      'a grant of another client': async () => ask(web, (await issued(web.id, { grant: { clientId: other.id } })).value),
      'a grant with rejected scopes': async () => ask(web, (await issued(web.id, { grant: { rejected: { openid: { scope: 'profile' } } } })).value),
      'a grant without the token\'s scopes': async () => ask(web, (await issued(web.id, { grant: { openid: { scope: 'email' } } })).value),
      'a banned account': async () => ask(web, (await issued(web.id, { token: { accountId: BOB } })).value),
      'an account that is gone': async () => ask(web, (await issued(web.id, { token: { accountId: '00000000-0000-4000-8000-000000000009' } })).value),
      'a scope parameter': () => ask(web, fine, { scope: 'openid' }),
      'a resource parameter': () => ask(web, fine, { resource: 'https://api.example/' }),
      'a JSON body': () => ask(web, fine, {}, { contentType: 'application/json' }),
      'a duplicate parameter': () => fastRefreshToken(deps(), { body: Buffer.from(`grant_type=refresh_token&refresh_token=${fine}&refresh_token=${fine}`), contentType: FORM, authorization: basic(web.id, web.secret) }),
      'no refresh token': () => fastRefreshToken(deps(), { body: Buffer.from('grant_type=refresh_token&refresh_token='), contentType: FORM, authorization: basic(web.id, web.secret) }),
      'Basic and a secret in the body too': () => fastRefreshToken(deps(), { body: Buffer.from(`grant_type=refresh_token&refresh_token=${fine}&client_secret=${web.secret}`), contentType: FORM, authorization: basic(web.id, web.secret) }),
    }
    for (const [name, run] of Object.entries(cases)) {
      const before = await accessTokens()
      // a case sets up its own token and grant rows first: only an access token is the answer's write
      expect({ name, answer: await run(), written: (await accessTokens()) - before }).toEqual({ name, answer: undefined, written: 0 })
    }
    // and the fine token is answered: the refusals above were not the client's or the key's
    expect(await ask(web, fine)).toMatchObject({ refresh_token: fine })
  })
})
