/**
 * The OpenID Provider on two IAM instances sharing one PostgreSQL database and one Redis, each
 * behind its own gateway: everything the provider keeps is in the database, so either instance
 * redeems, refreshes, introspects and revokes what the other issued. The issuer is one origin
 * (gateway A's); gateway B is a second way in to the same provider (a load balancer's other
 * backend), and its token endpoint takes the same requests.
 *
 * Two instances share state only through PostgreSQL + Redis; on the embedded defaults (PGlite,
 * memory storage) each instance has its own database, so "another instance" cannot be built and
 * the file is skipped.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hmac } from '../e2e/auth-stack'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { startIam, type IamServer } from '../helpers/iam-server'
import {
  authorizationUrl,
  Browser,
  codeFlow,
  codeParams,
  insecure,
  signUp,
  startOpStack,
  walkAuthorization,
  type OpStack,
  type RegisteredClient,
} from '../helpers/oidc-op'
import { skippedWithout, titled } from '../helpers/skip-notes'

const secret = () => randomBytes(32).toString('base64url')

// skipped without DATABASE_URL and REDIS_URL: two instances share one database and store only on
// PostgreSQL + Redis (an embedded PGlite belongs to one process); the PostgreSQL + Redis run sets both
describe.skipIf(skippedWithout('postgres+redis'))(titled('the OpenID Provider on two IAM instances (PostgreSQL + Redis)', 'postgres+redis'), () => {
  let op: OpStack
  let iam2: IamServer
  let gateway2: GatewayServer
  /** the same provider, reached through gateway B (IAM 2) */
  let asB: oauth.AuthorizationServer

  beforeAll(async () => {
    // the instances' secrets must be the same (cookie keys, sealed client secrets): set, not generated per data directory
    const secrets = { codes: secret(), links: secret(), totpKeys: [{ id: 'k1', key: secret() }] }
    op = await startOpStack({ iamConfig: () => ({ secrets }) })
    const config = JSON.parse(readFileSync(join(op.iam.dataDir, 'iam.json'), 'utf8')) as { service: Record<string, unknown> }
    delete config.service.dataDir
    iam2 = await startIam({ config, share: op.iam.share, env: { IAM_TEST_ROUTES: '1' } })
    gateway2 = await startGateway({ config: { iam: { url: iam2.url, hmac }, cookieSecret: 'e2e-test-cookie-secret-0123456789abcdef01' } })
    const viaB = (url: string | undefined) => url && `${gateway2.url}${new URL(url).pathname}`
    asB = {
      ...op.as,
      token_endpoint: viaB(op.as.token_endpoint),
      introspection_endpoint: viaB(op.as.introspection_endpoint),
      revocation_endpoint: viaB(op.as.revocation_endpoint),
      userinfo_endpoint: viaB(op.as.userinfo_endpoint),
    }
  }, 240_000)
  afterAll(async () => {
    await gateway2?.stop()
    await iam2?.stop()
    await op?.stop()
  })

  const introspectB = async (rp: RegisteredClient, token: string) =>
    oauth.processIntrospectionResponse(asB, rp.client, await oauth.introspectionRequest(asB, rp.client, rp.auth, token, insecure))

  it('a code issued by instance 1 is redeemed on instance 2, whose tokens instance 2 serves', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    const response = await oauth.authorizationCodeGrantRequest(asB, rp.client, rp.auth, codeParams(op, rp, walk.callback!, state), rp.redirectUri, verifier, insecure)
    const tokens = await oauth.processAuthorizationCodeResponse(asB, rp.client, response, { expectedNonce: nonce, requireIdToken: true })
    const sub = oauth.getValidatedIdTokenClaims(tokens)!.sub
    const info = await oauth.processUserInfoResponse(asB, rp.client, sub, await oauth.userInfoRequest(asB, rp.client, tokens.access_token, insecure))
    expect(info.sub).toBe(sub)
    expect((await introspectB(rp, tokens.access_token)).active).toBe(true)
  })

  it('of one code redeemed on both instances at once exactly one gets tokens', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    const params = codeParams(op, rp, walk.callback!, state)
    const outcomes = await Promise.all(
      [op.as, asB].map(async (as) => {
        const res = await oauth.authorizationCodeGrantRequest(as, rp.client, rp.auth, params, rp.redirectUri, verifier, insecure)
        return oauth.processAuthorizationCodeResponse(as, rp.client, res, { expectedNonce: nonce }).then(
          () => 'tokens',
          (error: { error?: string; message?: string }) => error.error ?? error.message,
        )
      }),
    )
    expect(outcomes.sort()).toEqual(['invalid_grant', 'tokens'])
  })

  it('a grant revoked on instance 1 is inactive on instance 2 at once: its access token introspects inactive and its refresh token is refused', async () => {
    const rp = await op.register({ name: 'Web app', firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser, { scope: 'openid offline_access', prompt: 'consent' })
    expect((await introspectB(rp, tokens.access_token)).active).toBe(true)
    // revoking the refresh token ends its grant (RFC 7009 section 2.1)
    await oauth.processRevocationResponse(await oauth.revocationRequest(op.as, rp.client, rp.auth, tokens.refresh_token!, insecure))
    expect((await introspectB(rp, tokens.access_token)).active).toBe(false)
    await expect(
      oauth.refreshTokenGrantRequest(asB, rp.client, rp.auth, tokens.refresh_token!, insecure).then((res) => oauth.processRefreshTokenResponse(asB, rp.client, res)),
    ).rejects.toMatchObject({ error: 'invalid_grant' })
  })

  it('a refresh token rotated on instance 2 and replayed on instance 1 ends the grant on both', async () => {
    const rp = await op.register({ name: 'Mobile app', public: true, firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser, { scope: 'openid offline_access', prompt: 'consent' })
    const rotated = await oauth.processRefreshTokenResponse(asB, rp.client, await oauth.refreshTokenGrantRequest(asB, rp.client, rp.auth, tokens.refresh_token!, insecure))
    await expect(
      oauth.refreshTokenGrantRequest(op.as, rp.client, rp.auth, tokens.refresh_token!, insecure).then((res) => oauth.processRefreshTokenResponse(op.as, rp.client, res)),
    ).rejects.toMatchObject({ error: 'invalid_grant' })
    expect((await introspectB(rp, rotated.access_token)).active).toBe(false)
  })
})
