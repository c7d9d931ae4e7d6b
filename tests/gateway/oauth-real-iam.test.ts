/**
 * The whole chain with the real services: browser -> gateway -> oidc-provider -> gateway -> the
 * built IAM (HMAC on, its GET /check and POST /auth/OAuth/:providerName). Runs on PGlite + memory,
 * or on PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set.
 */
import { randomBytes } from 'node:crypto'
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose'
import { createIamClient } from '../../iam/client/iam-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/fake-iam'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { startIam, type IamServer } from '../helpers/iam-server'
import { createBrowser, startOidcProvider, walkProvider, type OidcProvider } from '../helpers/oidc-provider'

let iam: IamServer
let op: OidcProvider
let gw: GatewayServer
let base: string
let hmac: { clientId: string; sharedSecret: string }

beforeAll(async () => {
  hmac = { clientId: 'gateway', sharedSecret: randomBytes(32).toString('hex') }
  // as `npm start` configures it: version 2 signatures only (the gateway's client always sends them)
  iam = await startIam({ config: { service: { Hmac: { ...hmac, requireBodyDigest: true } }, providers: [{ name: 'demo', useStandardProfile: true }] } })
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  const client = {
    client_id: 'gw-real',
    client_secret: 'gw-real-secret-0123456789',
    redirect_uris: [`${base}/oauth/callback/demo`],
    token_endpoint_auth_method: 'client_secret_basic' as const,
  }
  op = await startOidcProvider([client])
  gw = await startGateway({
    port,
    config: {
      iam: { url: iam.url, hmac },
      cookieSecret: 'real-iam-test-cookie-secret-0123456789-abcdef',
      OAuthProviders: [
        {
          kind: 'oidc',
          name: 'demo',
          issuer: op.issuer,
          clientId: client.client_id,
          clientSecret: client.client_secret,
          redirectUri: client.redirect_uris[0],
          defaultScopes: ['openid', 'email', 'profile'],
          supportPKCE: true,
          redirectUrlOnSuccess: `${base}/account`,
          redirectUrlOnError: `${base}/auth/error`,
        },
      ],
    },
  })
})

afterAll(async () => {
  await gw?.stop()
  await op?.stop()
  await iam?.stop()
})

describe('OAuth login against the real IAM', () => {
  it('creates the account and leaves the browser with an IAM access token, a refresh session and its device cookie', async () => {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demo`)
    expect(start.status).toBe(302)
    const canary = browser.cookies(base).get('canary_id')
    expect(canary).toMatch(/^[0-9a-f]{64}$/)
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demo`, 'carol')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    const res = await browser.request(back.url)
    expect(res.status).toBe(200)
    const jar = browser.cookies(base)
    expect(jar.get('canary_id')).toBe(canary)
    expect(jar.get('session')).toMatch(/^[\w-]{43}$/)
    // the IAM signs every route but /health from loopback: fetch its key set like the gateway would
    const jwks = await createIamClient({ baseUrl: iam.url, hmac }).request<JSONWebKeySet>({ method: 'GET', path: '/.well-known/jwks.json' })
    expect(jwks.status).toBe(200)
    const { payload } = await jwtVerify(jar.get('__Secure-a') ?? '', createLocalJWKSet(jwks.body!))
    expect(payload.sub).toMatch(/^\d+$/)
    expect(Number(jar.get('a-iat'))).toBeGreaterThan(Date.now() - 60_000)
  })

  it('logs the same provider account in again (second login of an existing user)', async () => {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demo`)
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demo`, 'carol')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    expect((await browser.request(back.url)).status).toBe(200)
  })
})
