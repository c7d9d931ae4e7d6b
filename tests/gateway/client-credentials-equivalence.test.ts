/**
 * The two ways a client credentials grant (RFC 6749 section 4.4) is answered give the same answer
 * to every request: the two-statement path (iam/fast/client-credentials.ts, on by default) and
 * oidc-provider's token endpoint alone (`oidc.fastClientCredentials: false`). Two IAM instances
 * answer: A, the stack's, with the default, and B, started with the switch off, on A's clients (on
 * PostgreSQL A's database; on PGlite a copy of it taken once the clients exist,
 * test-build/routes/__test/database-dump.get.ts).
 *
 * Each case goes to A and to B as the gateway forwards it (server/utils/oidc-forward.ts: the same
 * bytes, signed): the status, every header but the per-response `date` and `x-request-id`, and the
 * body must be the same, the token's value aside (each grant makes its own); a token either path
 * issued introspects, at the IAM that issued it, to the same members with the same lifetime, and a
 * token of the two-statement path is one the provider itself revokes.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIamClient, type IamClient } from '../../iam/client/iam-client'
import { hmac } from '../e2e/auth-stack'
import type { IamServer } from '../helpers/iam-server'
import { API, startOpStack, startSecondIam, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

const LEDGER = 'https://ledger.example.test/'
const TOKEN = '/oidc/token'
const FORM = 'application/x-www-form-urlencoded'
const PER_RESPONSE = new Set(['date', 'x-request-id'])
const MATRIX_TIMEOUT_MS = 120_000

const secret = () => randomBytes(32).toString('base64url')

let op: OpStack
let second: IamServer
const paths: { fast?: IamClient; provider?: IamClient } = {}
const clients: Record<string, RegisteredClient> = {}

beforeAll(async () => {
  // set, not generated per data directory: B opens the same sealed client secrets
  const secrets = { codes: secret(), links: secret(), totpKeys: [{ id: 'k1', key: secret() }] }
  op = await startOpStack({
    iamConfig: () => ({
      secrets,
      oidc: {
        resourceServers: [
          { indicator: API, scopes: ['orders:read'] },
          { indicator: LEDGER, scopes: ['ledger:read'], accessTokenFormat: 'opaque' },
        ],
      },
    }),
  })
  clients.worker = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'ledger:read orders:read' })
  clients.poster = await op.register({ name: 'Poster', grants: ['client_credentials'], authMethod: 'client_secret_post', scope: 'orders:read' })
  // the default scope: openid profile email offline_access
  clients.plain = await op.register({ name: 'Plain worker', grants: ['client_credentials'] })
  clients.shop = await op.register({ name: 'Shop', firstParty: true })
  // IAM B: A's configuration with the switch off, on A's clients
  second = await startSecondIam(op, 'client-credentials-equivalence', (config) => {
    config.oidc.fastClientCredentials = false
  })
  paths.fast = createIamClient({ baseUrl: op.iam.url, hmac })
  paths.provider = createIamClient({ baseUrl: second.url, hmac })
}, 240_000)

afterAll(async () => {
  await second?.stop()
  await op?.stop()
})

type Pairs = Array<[string, string]>

interface Case {
  name: string
  headers: Record<string, string>
  body: string
  /** the client whose token a 200 carries, for its introspection */
  owner?: RegisteredClient
}

const form = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
const base64 = (text: string) => Buffer.from(text).toString('base64')
const basicOf = (id: string, secretValue: string) => `Basic ${base64(`${encodeURIComponent(id)}:${encodeURIComponent(secretValue)}`)}`
const everyByteEncoded = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')

/** How `client` authenticates as registered: Basic, or in the body. */
function registered(client: RegisteredClient, post = false): { headers: Record<string, string>; params: Pairs } {
  const id = client.client.client_id
  return post ? { headers: {}, params: [['client_id', id], ['client_secret', client.secret!]] } : { headers: { authorization: basicOf(id, client.secret!) }, params: [] }
}

function grantCase(name: string, auth: { headers: Record<string, string>; params: Pairs }, params: Pairs, owner?: RegisteredClient, headers: Record<string, string> = { 'content-type': FORM }): Case {
  return { name, headers: { ...headers, ...auth.headers }, body: form([...params, ...auth.params]), owner }
}

interface Answer {
  status: number
  headers: Record<string, string>
  body: Record<string, unknown> | string
  token?: string
}

/** The case as the gateway forwards it, to one IAM; a 503 with Retry-After (an outage on a loaded box) is asked again. */
async function ask(iam: IamClient, c: { headers: Record<string, string>; body: string }, target = TOKEN, attempt = 1): Promise<Answer> {
  const res = await iam.forward({ method: 'POST', target, headers: c.headers, body: Buffer.from(c.body), clientIp: '198.51.100.24' })
  if (res.status === 503 && res.headers.has('retry-after') && attempt < 10) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    return ask(iam, c, target, attempt + 1)
  }
  // by name: the members' order is compared (the body's), the headers' order on the wire is not
  const shown: Array<[string, string]> = []
  res.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) shown.push([name, value])
  })
  const headers = Object.fromEntries(shown.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const text = Buffer.from(res.body).toString('utf8')
  let body: Record<string, unknown> | string = text
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    // an HTML error page stays text
  }
  // the token's value differs per grant: its shape is compared, the value kept for introspection
  if (typeof body === 'object' && typeof body.access_token === 'string') {
    const token = body.access_token
    body = { ...body, access_token: `<${token.length} characters>` }
    return { status: res.status, headers, body, token }
  }
  return { status: res.status, headers, body }
}

/**
 * What `token` introspects to at `iam`, asked by `owner`; the clock's members as the lifetime. A
 * JWT access token (an API that takes them) is read instead: the provider introspects only opaque
 * ones, and the JWT's own id is per token.
 */
async function introspected(iam: IamClient, owner: RegisteredClient, token: string): Promise<Record<string, unknown>> {
  if (token.split('.').length === 3) {
    const { iat, exp, jti: _jti, ...claims } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>
    return { active: true, ...claims, lifetime: (exp as number) - (iat as number) }
  }
  const auth = registered(owner, owner === clients.poster)
  const answer = await ask(iam, { headers: { 'content-type': FORM, ...auth.headers }, body: form([['token', token], ...auth.params]) }, '/oidc/token/introspection')
  expect(answer.status, `${token}: ${JSON.stringify(answer.body)}`).toBe(200)
  const { iat, exp, ...rest } = answer.body as Record<string, unknown>
  return { ...rest, lifetime: typeof exp === 'number' && typeof iat === 'number' ? exp - iat : 'none' }
}

describe('both paths give every client credentials grant the same answer', () => {
  it('every scope, resource, parameter and client: the same status, headers and body, and tokens that introspect the same', async () => {
    const { worker, poster, plain, shop } = clients as Record<string, RegisteredClient>
    const grant: Pairs = [['grant_type', 'client_credentials']]
    const cases: Case[] = []
    const scopes: Array<[string, string | undefined]> = [
      ['no scope', undefined],
      ['an API scope', 'orders:read'],
      ['two API scopes, one twice', 'ledger:read orders:read ledger:read'],
      ['an unknown scope', 'no-such:scope'],
      ['a known scope outside the registered ones', 'openid'],
      ['an allowed and a refused scope', 'orders:read profile'],
      ['an OpenID scope of the default registration', 'openid email'],
      ['two spaces', 'orders:read  ledger:read'],
      ['a leading space', ' orders:read'],
      ['an empty scope', ''],
      ['a character outside the syntax', 'orders"read'],
    ]
    for (const [who, client, post] of [['worker', worker, false], ['poster', poster, true], ['plain', plain, false]] as Array<[string, RegisteredClient, boolean]>) {
      for (const [scopeName, scope] of scopes) {
        cases.push(grantCase(`${who}: ${scopeName}`, registered(client, post), scope === undefined ? grant : [...grant, ['scope', scope]], client))
      }
    }
    const id = worker!.client.client_id
    const right = worker!.secret!
    cases.push(
      grantCase('wrong secret', { headers: { authorization: basicOf(id, `${right}x`) }, params: [] }, grant),
      grantCase('unknown client', { headers: { authorization: basicOf('no-such-client', 'a-secret') }, params: [] }, grant),
      grantCase('every byte of Basic form-encoded', { headers: { authorization: `Basic ${base64(`${everyByteEncoded(id)}:${everyByteEncoded(right)}`)}` }, params: [] }, grant, worker),
      grantCase('Basic scheme in lower case', { headers: { authorization: `basic ${base64(`${id}:${right}`)}` }, params: [] }, grant, worker),
      grantCase('Basic and the same client_id in the body', { headers: { authorization: basicOf(id, right) }, params: [['client_id', id]] }, grant, worker),
      grantCase('Basic and another client_id in the body', { headers: { authorization: basicOf(id, right) }, params: [['client_id', poster!.client.client_id]] }, grant),
      grantCase('Basic for a client registered for client_secret_post', registered(poster!), grant),
      grantCase('client_secret_post for a client registered for Basic', registered(worker!, true), grant),
      grantCase('a client without the grant', registered(shop!), grant),
      grantCase('a resource indicator', registered(worker!), [...grant, ['resource', LEDGER], ['scope', 'ledger:read']], worker),
      grantCase('a resource indicator for a JWT API', registered(worker!), [...grant, ['resource', API], ['scope', 'orders:read']], worker),
      grantCase('an unknown resource', registered(worker!), [...grant, ['resource', 'https://nowhere.example.test/']]),
      grantCase('grant_type twice', registered(worker!), [...grant, ...grant]),
      grantCase('scope twice', registered(worker!), [...grant, ['scope', 'orders:read'], ['scope', 'orders:read']]),
      grantCase('an unknown parameter', registered(worker!), [...grant, ['colour', 'blue']], worker),
      grantCase('no grant_type', registered(worker!), []),
      grantCase('another grant type', registered(worker!), [['grant_type', 'password']]),
      grantCase('a JSON body', registered(worker!), grant, undefined, { 'content-type': 'application/json' }),
      grantCase('a form with a charset', registered(worker!), grant, worker, { 'content-type': `${FORM}; charset=utf-8` }),
      grantCase('a malformed DPoP proof', registered(worker!), grant, undefined, { 'content-type': FORM, dpop: 'not-a-proof' }),
      grantCase('with an Origin', registered(worker!), grant, worker, { 'content-type': FORM, origin: 'https://app.example.test' }),
    )

    const differing: Array<{ name: string; fast: Answer; provider: Answer }> = []
    const issued: Array<{ name: string; owner: RegisteredClient; fast: string; provider: string }> = []
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(
        cases.slice(i, i + 4).map(async (c) => {
          const [fast, provider] = await Promise.all([ask(paths.fast!, c), ask(paths.provider!, c)])
          const { token: fastToken, ...fastShown } = fast
          const { token: providerToken, ...providerShown } = provider
          expect({ name: c.name, ...fastShown }).toEqual({ name: c.name, ...providerShown })
          if (JSON.stringify(fastShown) !== JSON.stringify(providerShown)) differing.push({ name: c.name, fast, provider })
          if (fastToken && providerToken) issued.push({ name: c.name, owner: c.owner!, fast: fastToken, provider: providerToken })
        }),
      )
    }
    // the members in the same order, too
    expect(differing).toEqual([])
    // the cases are what their names say: the right grants got tokens, the rest errors
    expect(issued.length).toBeGreaterThanOrEqual(20)
    expect(issued.map((t) => t.name)).toContain('worker: two API scopes, one twice')
    expect(issued.map((t) => t.name)).not.toContain('wrong secret')

    for (const token of issued) {
      const [fast, provider] = await Promise.all([introspected(paths.fast!, token.owner, token.fast), introspected(paths.provider!, token.owner, token.provider)])
      expect({ name: token.name, ...fast }).toEqual({ name: token.name, ...provider })
      expect(fast.active).toBe(true)
    }
  }, MATRIX_TIMEOUT_MS)

  it('a token of the two-statement path is revoked by the provider like its own', async () => {
    const worker = clients.worker!
    const answer = await ask(paths.fast!, grantCase('grant', registered(worker), [['grant_type', 'client_credentials']]))
    expect(answer.status).toBe(200)
    expect(await introspected(paths.fast!, worker, answer.token!)).toMatchObject({ active: true, client_id: worker.client.client_id })
    const revoked = await ask(paths.fast!, { headers: { 'content-type': FORM, authorization: basicOf(worker.client.client_id, worker.secret!) }, body: form([['token', answer.token!]]) }, '/oidc/token/revocation')
    expect(revoked.status).toBe(200)
    expect(await introspected(paths.fast!, worker, answer.token!)).toEqual({ active: false, lifetime: 'none' })
  })
})
