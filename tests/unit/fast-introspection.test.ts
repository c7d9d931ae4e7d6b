/**
 * iam/fast/introspection.ts answers an introspection in one statement only where it
 * can answer exactly as the provider would, and hands everything else to the provider (undefined).
 * Its decisions against stored rows: a live token's members, the inactive cases it answers itself
 * (consumed, expired, its grant gone, expired or another client's or account's), who may learn
 * about a token (its own client, or a resource server its audience names; anyone else gets the
 * inactive answer), and the tokens and callers it leaves to the provider. On a migrated database
 * with real sealed client secrets. tests/gateway/introspection.security.test.ts asks the same
 * questions of both paths through the front door.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createClient, openClientSecret } from '../../iam/features/oidc/clients'
import { introspectionPolicy } from '../../iam/features/oidc/introspection-policy'
import { fastIntrospection } from '../../iam/fast/introspection'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'

const NOW = Date.parse('2026-11-27T12:00:00Z')
const EXP = NOW / 1000 + 3600
const API_AUDIENCE = 'https://api.example/'
/** resource servers are set once the clients exist: `introspectionClients` names the API's client */
const config: {
  secrets: { totpKeys: Array<{ id: string; key: string }> }
  oidc: { resourceServers: Array<{ indicator: string; scopes: string[]; accessTokenFormat: 'opaque'; introspectionClients: string[] }> }
} = { secrets: { totpKeys: [{ id: 'k1', key: randomBytes(32).toString('base64url') }] }, oidc: { resourceServers: [] } }
const ISSUER = 'http://localhost:3000/oidc'
const FORM = 'application/x-www-form-urlencoded'

describe.each(KINDS)('the one-statement introspection on $label', ({ kind, skip: kindAbsent }) => {
  const t = dataLayerDbForSuite(kind, kindAbsent)
  /** what routes/oidc hands the path: the opening of client secrets, and the access rule of the configuration as it is now */
  const deps = () => ({
    db: t.db,
    issuer: ISSUER,
    now: NOW,
    openSecret: (clientId: string, sealed: string) => openClientSecret(config, clientId, sealed),
    mayIntrospect: introspectionPolicy(config.oidc.resourceServers),
  })
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
  let api: { id: string; secret: string }
  let web: { id: string; secret: string }
  let worker: { id: string; secret: string }

  const store = (model: string, id: string, payload: Record<string, unknown>, over: { consumed?: boolean } = {}) =>
    t.db.insertInto('oidc_payloads').values({
      model, id, payload: JSON.stringify({ kind: model, jti: id, ...payload }), grant_id: (payload.grantId as string | undefined) ?? null,
      user_code: null, uid: null, account_id: (payload.accountId as string | undefined) ?? null, expires_at: new Date(NOW + 3_600_000),
      consumed_at: over.consumed ? new Date(NOW - 60_000) : null,
    }).execute()

  const ask = (token: string, caller = api) =>
    fastIntrospection(deps(), { body: Buffer.from(new URLSearchParams({ token }).toString()), contentType: FORM, authorization: basic(caller.id, caller.secret) })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('answers a live token with the provider\'s members, and the inactive cases as inactive', async () => {
    const made = async (name: string) => {
      const { client, clientSecret } = await createClient({ db: t.db, config }, { name, redirectUris: ['https://app.example/cb'], grants: ['authorization_code', 'client_credentials'] })
      return { id: client.clientId, secret: clientSecret! }
    }
    api = await made('Orders API')
    web = await made('Web app')
    worker = await made('Worker')
    config.oidc.resourceServers = [{ indicator: API_AUDIENCE, scopes: [], accessTokenFormat: 'opaque', introspectionClients: [api.id] }]
    await store('Grant', 'g-live', { clientId: web.id, accountId: 'acc-1', exp: EXP })
    await store('Grant', 'g-old', { clientId: web.id, accountId: 'acc-1', exp: NOW / 1000 - 1 })
    await store('Grant', 'g-other', { clientId: api.id, accountId: 'acc-1', exp: EXP })
    await store('AccessToken', 'at-live', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, iat: EXP - 3600, sid: 's-1', scope: 'openid email', aud: [API_AUDIENCE] })
    await store('ClientCredentials', 'cc-live', { clientId: api.id, exp: EXP, iat: EXP - 600, scope: 'orders:read' })
    await store('AccessToken', 'at-consumed', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP }, { consumed: true })
    await store('AccessToken', 'at-expired', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: NOW / 1000 })
    await store('AccessToken', 'at-no-grant', { clientId: web.id, accountId: 'acc-1', grantId: 'g-gone', exp: EXP })
    await store('AccessToken', 'at-grant-expired', { clientId: web.id, accountId: 'acc-1', grantId: 'g-old', exp: EXP })
    await store('AccessToken', 'at-grant-other-client', { clientId: web.id, accountId: 'acc-1', grantId: 'g-other', exp: EXP })
    await store('AccessToken', 'at-grant-other-account', { clientId: web.id, accountId: 'acc-2', grantId: 'g-live', exp: EXP })

    expect(await ask('at-live')).toEqual({ active: true, sub: 'acc-1', client_id: web.id, exp: EXP, iat: EXP - 3600, sid: 's-1', iss: ISSUER, aud: [API_AUDIENCE], scope: 'openid email', token_type: 'Bearer' })
    expect(await ask('cc-live')).toEqual({ active: true, client_id: api.id, exp: EXP, iat: EXP - 600, iss: ISSUER, scope: 'orders:read', token_type: 'Bearer' })
    for (const token of ['at-consumed', 'at-expired', 'at-no-grant', 'at-grant-expired', 'at-grant-other-client', 'at-grant-other-account']) {
      expect({ token, answer: await ask(token, web) }).toEqual({ token, answer: { active: false } })
    }
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  // skipped where KINDS says, as above
  it.skipIf(kindAbsent)('tells a client about its own tokens and a resource server about the access tokens for it; anyone else gets the inactive answer', async () => {
    await store('AccessToken', 'at-userinfo', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, iat: EXP - 3600, scope: 'openid' })
    await store('AccessToken', 'at-api-string', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, iat: EXP - 3600, scope: 'openid', aud: API_AUDIENCE })
    await store('AccessToken', 'at-elsewhere', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, iat: EXP - 3600, aud: 'https://elsewhere.example/' })
    await store('ClientCredentials', 'cc-worker-api', { clientId: worker.id, exp: EXP, iat: EXP - 600, aud: API_AUDIENCE })
    const live = (token: string) => expect.objectContaining({ token, answer: expect.objectContaining({ active: true }) })
    const decisions: Array<[string, { id: string; secret: string }, 'active' | 'inactive']> = [
      // its own client: every token of its own, whatever the audience
      ['at-live', web, 'active'], ['at-userinfo', web, 'active'], ['at-elsewhere', web, 'active'], ['cc-live', api, 'active'], ['cc-worker-api', worker, 'active'],
      // the API's client: the access tokens whose audience is the API, a person's or a worker's
      ['at-live', api, 'active'], ['at-api-string', api, 'active'], ['cc-worker-api', api, 'active'],
      // the API's client, for tokens with another audience or none: as unknown
      ['at-userinfo', api, 'inactive'], ['at-elsewhere', api, 'inactive'],
      // any other confidential client (a worker, an app): as unknown
      ['at-live', worker, 'inactive'], ['at-userinfo', worker, 'inactive'], ['at-api-string', worker, 'inactive'], ['cc-live', worker, 'inactive'],
      ['cc-live', web, 'inactive'], ['cc-worker-api', web, 'inactive'],
      // not allowed and not live either: the same answer
      ['at-expired', worker, 'inactive'], ['at-consumed', api, 'inactive'],
    ]
    for (const [token, caller, expected] of decisions) {
      const answer = { token, caller: caller.id, answer: await ask(token, caller) }
      expect(answer).toEqual(expected === 'active' ? live(token) : { token, caller: caller.id, answer: { active: false } })
    }
    // the API's answer is the owner's, member for member
    expect(await ask('at-live', api)).toEqual(await ask('at-live', web))
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('leaves to the provider what it does not render, and callers it cannot check', async () => {
    await store('AccessToken', 'at-dpop', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, jkt: 'thumbprint' })
    await store('AccessToken', 'at-mtls', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, 'x5t#S256': 'thumbprint' })
    await store('AccessToken', 'at-rar', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, rar: [{ type: 'payment' }] })
    await store('AccessToken', 'at-extra', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, extra: { tenant: 'a' } })
    await store('AccessToken', 'at-extra-empty', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP, extra: {} })
    await store('RefreshToken', 'rt-1', { clientId: web.id, accountId: 'acc-1', grantId: 'g-live', exp: EXP })
    for (const token of ['at-dpop', 'at-mtls', 'at-rar', 'at-extra', 'rt-1', 'no-such-token']) {
      expect({ token, answer: await ask(token, web) }).toEqual({ token, answer: undefined })
    }
    // an empty `extra` is no extra claim: answered here
    expect(await ask('at-extra-empty', web)).toMatchObject({ active: true, client_id: web.id })
    // a wrong secret or an unknown client: the provider's own error answer
    expect(await ask('at-live', { ...api, secret: `${api.secret}x` })).toBeUndefined()
    expect(await ask('at-live', { id: 'no-such-client', secret: 'x' })).toBeUndefined()
    // a secret sent another way than the client registered: left to the provider, whose client
    // lookup refuses it (features/oidc/adapter.ts; tests/gateway/oidc-hardening.security.test.ts)
    const inBody = (caller: { id: string; secret: string }) =>
      fastIntrospection(deps(), { body: Buffer.from(new URLSearchParams({ token: 'at-live', client_id: caller.id, client_secret: caller.secret }).toString()), contentType: FORM, authorization: undefined })
    expect(await inBody(web)).toBeUndefined()
    const made = await createClient({ db: t.db, config }, { name: 'Posting app', redirectUris: ['https://post.example/cb'], authMethod: 'client_secret_post' })
    const poster = { id: made.client.clientId, secret: made.clientSecret! }
    await store('AccessToken', 'at-poster', { clientId: poster.id, accountId: 'acc-1', exp: EXP })
    expect(await ask('at-poster', poster)).toBeUndefined()
    expect(await fastIntrospection(deps(), { body: Buffer.from(new URLSearchParams({ token: 'at-poster', client_id: poster.id, client_secret: poster.secret }).toString()), contentType: FORM, authorization: undefined })).toMatchObject({ active: true, client_id: poster.id })
  })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('takes Basic credentials and the form content type only as client libraries write them; any other shape, which the provider refuses, is left to it', async () => {
    const asked = (authorization: string, contentType: string | undefined) =>
      fastIntrospection(deps(), { body: Buffer.from(new URLSearchParams({ token: 'at-live' }).toString()), contentType, authorization })
    const encoded = Buffer.from(`${web.id}:${web.secret}`).toString('base64')
    for (const authorization of [`Basic ${encoded}`, `basic ${encoded}`, `Basic ${encoded.replace(/=+$/, '')}`]) {
      expect({ authorization, answer: await asked(authorization, FORM) }).toEqual({ authorization, answer: expect.objectContaining({ active: true }) })
    }
    for (const contentType of [`${FORM};charset=UTF-8`, `${FORM}; charset=utf-8`]) {
      expect({ contentType, answer: await asked(`Basic ${encoded}`, contentType) }).toEqual({ contentType, answer: expect.objectContaining({ active: true }) })
    }
    // oidc-provider's client_auth.js answers each of these with invalid_request
    const refused = [`Basic  ${encoded}`, `Basic\t${encoded}`, `Basic ${encoded}=`, `Basic ${encoded.slice(0, 4)}!${encoded.slice(4)}`, `Basic ${encoded}===`, 'Basic']
    for (const authorization of refused) expect({ authorization, answer: await asked(authorization, FORM) }).toEqual({ authorization, answer: undefined })
    // its selective_body.js refuses another media type; a parameter other than the charset is left to it too
    for (const contentType of [`${FORM}-v2`, `${FORM}; foo=bar`, 'text/plain', undefined]) {
      expect({ contentType, answer: await asked(`Basic ${encoded}`, contentType) }).toEqual({ contentType, answer: undefined })
    }
  })
})
