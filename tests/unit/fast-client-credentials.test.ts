/**
 * iam/fast/client-credentials.ts answers a client credentials grant itself only where it can answer
 * exactly as the provider would, and hands everything else to the provider (undefined): which
 * requests and clients it answers, the scope it grants, and the token row it stores. On a migrated
 * database with real sealed client secrets. tests/gateway/client-credentials-equivalence.test.ts
 * holds its answers to the provider's through the front door.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createClient, openClientSecret } from '../../iam/features/oidc/clients'
import { fastClientCredentials } from '../../iam/fast/client-credentials'
import { dataLayerDbForSuite, KINDS } from './data-layer-db'

const NOW = Date.parse('2026-11-30T12:00:00Z')
const TTL = 600
const FORM = 'application/x-www-form-urlencoded'
const config = { secrets: { totpKeys: [{ id: 'k1', key: randomBytes(32).toString('base64url') }] } }
const KNOWN = new Set(['openid', 'offline_access', 'profile', 'email', 'organization', 'orders:read', 'ledger:read'])

describe.each(KINDS)('the two-statement client credentials grant on $label', ({ kind, skip: kindAbsent }) => {
  const t = dataLayerDbForSuite(kind, kindAbsent)
  let sweeps = 0
  const deps = () => ({
    db: t.db,
    now: NOW,
    openSecret: (clientId: string, sealed: string) => openClientSecret(config, clientId, sealed),
    knownScopes: KNOWN,
    ttlSeconds: TTL,
    stored: () => void sweeps++,
  })
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
  const made = async (input: { grants?: Array<'client_credentials' | 'authorization_code'>; scope?: string; authMethod?: 'client_secret_post' }) => {
    const { client, clientSecret } = await createClient({ db: t.db, config }, { name: 'Worker', redirectUris: ['https://app.example/cb'], grants: input.grants ?? ['client_credentials'], ...input })
    return { id: client.clientId, secret: clientSecret! }
  }
  const ask = (caller: { id: string; secret: string }, params: Record<string, string> = {}, over: { contentType?: string; post?: boolean } = {}) =>
    fastClientCredentials(deps(), {
      body: Buffer.from(new URLSearchParams({ grant_type: 'client_credentials', ...params, ...(over.post ? { client_id: caller.id, client_secret: caller.secret } : {}) }).toString()),
      contentType: over.contentType ?? FORM,
      authorization: over.post ? undefined : basic(caller.id, caller.secret),
    })

  // skipped where KINDS says: PostgreSQL runs with DATABASE_URL (CI's PostgreSQL + Redis run), PGlite without it
  it.skipIf(kindAbsent)('answers a secret-authenticated grant and stores the token as the provider does: iat, exp, jti, kind, clientId, scope', async () => {
    const worker = await made({ scope: 'orders:read ledger:read' })
    const before = sweeps
    const answer = await ask(worker, { scope: 'ledger:read orders:read ledger:read no-such:scope' })
    expect(answer).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: TTL, scope: 'ledger:read orders:read', token_type: 'Bearer' })
    expect(Object.keys(answer!)).toEqual(['access_token', 'expires_in', 'scope', 'token_type'])
    expect(sweeps).toBe(before + 1)
    const row = await t.db.selectFrom('oidc_payloads').selectAll().where('model', '=', 'ClientCredentials').where('id', '=', answer!.access_token).executeTakeFirstOrThrow()
    const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload
    expect(payload).toEqual({ iat: NOW / 1000, exp: NOW / 1000 + TTL, jti: answer!.access_token, kind: 'ClientCredentials', clientId: worker.id, scope: 'ledger:read orders:read' })
    expect(row.expires_at?.getTime()).toBe(NOW + TTL * 1000)
    expect([row.grant_id, row.account_id, row.consumed_at]).toEqual([null, null, null])

    const unscoped = await ask(worker)
    expect(unscoped).toEqual({ access_token: expect.any(String), expires_in: TTL, token_type: 'Bearer' })
    expect(unscoped!.access_token).not.toBe(answer!.access_token)
  })

  it.skipIf(kindAbsent)('a client registered for client_secret_post is answered with its secret in the body, and not by Basic', async () => {
    const poster = await made({ authMethod: 'client_secret_post' })
    expect(await ask(poster, {}, { post: true })).toMatchObject({ token_type: 'Bearer' })
    expect(await ask(poster)).toBeUndefined()
  })

  it.skipIf(kindAbsent)('leaves to the provider whatever it would refuse or render otherwise', async () => {
    const worker = await made({ scope: 'orders:read' })
    const web = await made({ grants: ['authorization_code'] })
    const before = await t.db.selectFrom('oidc_payloads').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()
    const left = {
      'a wrong secret': await ask({ id: worker.id, secret: `${worker.secret}x` }),
      'an unknown client': await ask({ id: 'no-such-client', secret: 'x' }),
      'a client without the grant': await ask(web),
      'Basic and a secret in the body too': await fastClientCredentials(deps(), { body: Buffer.from(`grant_type=client_credentials&client_secret=${worker.secret}`), contentType: FORM, authorization: basic(worker.id, worker.secret) }),
      'a scope outside the registered ones': await ask(worker, { scope: 'openid' }),
      'a scope of bad syntax': await ask(worker, { scope: 'orders:read  openid' }),
      'an empty scope': await ask(worker, { scope: '' }),
      'a resource indicator': await ask(worker, { resource: 'https://api.example/' }),
      'authorization details': await ask(worker, { authorization_details: '[]' }),
      'another grant type': await ask(worker, { grant_type: 'refresh_token' }),
      'a JSON body': await ask(worker, {}, { contentType: 'application/json' }),
      'a duplicate parameter': await fastClientCredentials(deps(), { body: Buffer.from('grant_type=client_credentials&grant_type=client_credentials'), contentType: FORM, authorization: basic(worker.id, worker.secret) }),
    }
    expect(left).toEqual(Object.fromEntries(Object.keys(left).map((name) => [name, undefined])))
    const after = await t.db.selectFrom('oidc_payloads').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })

  it.skipIf(kindAbsent)('leaves to the provider a client with metadata it does not render (a DPoP-bound client, an expiring secret)', async () => {
    for (const extra of [{ dpop_bound_access_tokens: true }, { client_secret_expires_at: Math.floor(NOW / 1000) + 60 }]) {
      const worker = await made({})
      const row = await t.db.selectFrom('oidc_clients').select('metadata').where('client_id', '=', worker.id).executeTakeFirstOrThrow()
      const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata
      await t.db.updateTable('oidc_clients').set({ metadata: JSON.stringify({ ...metadata, ...extra }) }).where('client_id', '=', worker.id).execute()
      expect({ extra, answer: await ask(worker) }).toEqual({ extra, answer: undefined })
    }
  })
})
