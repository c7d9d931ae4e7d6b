/**
 * The console's OpenID clients and a metadata-document host blocked at run time
 * (features/oidc/client-directory.ts, blocked-hosts.ts, pages/admin/clients.vue), through the BFF
 * as the page calls it: a document client (served over https on loopback with a certificate made
 * here, trusted by the IAM through NODE_EXTRA_CA_CERTS, as in oidc-client-metadata-documents.test.ts)
 * is listed with the people who allowed it; once its host is blocked its refresh token and a new
 * authorization are refused with the library's `invalid_client`, and after the block is lifted a
 * new authorization works again. Only a platform administrator may read or change any of it.
 * And the consent page's words for an API's scopes, from the API's configuration.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signRequestV2 } from '../../iam/client/hmac'
import { hmac } from '../e2e/auth-stack'
import { API, authorizationUrl, Browser, codeParams, insecure, newEmail, redeem, signUp, startOpStack, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

const REDIRECT = 'http://127.0.0.1:9/cb'
let dir: string
let docs: Server
let base: string
let op: OpStack

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cimd-block-'))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
  docs = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname
    if (path !== '/agent.json') return res.writeHead(404).end()
    const body = { client_id: `${base}${path}`, client_name: 'Block Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve))
  base = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`
  op = await startOpStack({
    iamConfig: () => ({
      oidc: {
        allowLoopbackRequests: true,
        clientIdMetadataDocuments: { blockedHosts: ['bad.example'] },
        resourceServers: [{ indicator: API, scopes: ['orders:read', 'orders:write'], scopeDescriptions: { 'orders:read': { en: 'See your orders', de: 'Ihre Bestellungen sehen' } } }],
      },
    }),
    iamEnv: { NODE_EXTRA_CA_CERTS: cert },
  })
}, 240_000)

afterAll(async () => {
  await op?.stop()
  docs?.closeAllConnections()
  await new Promise((resolve) => docs?.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const agent = (): RegisteredClient => ({ client: { client_id: `${base}/agent.json` }, auth: oauth.None(), secret: null, redirectUri: REDIRECT })

/** A signed-up account made a platform administrator through the test build's route. */
async function administrator(): Promise<Browser> {
  const browser = new Browser(op.url)
  const email = await signUp(browser, newEmail('clients-admin'))
  const body = JSON.stringify({ email, admin: true })
  const granted = await fetch(`${op.iam.url}/__test/platform-admin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body }) },
    body,
  })
  expect(granted.status, await granted.text()).toBe(200)
  return browser
}

/** Sign-in and consent for the agent with offline_access: its tokens, refresh token included. */
async function authorize(browser: Browser) {
  const rp = agent()
  const { url, verifier, state, nonce } = await authorizationUrl(op, rp, { scope: 'openid offline_access', prompt: 'consent' })
  const walk = await walkAuthorization(browser, url, REDIRECT)
  if (!walk.callback) return { refused: walk.stopped! }
  return { tokens: await redeem(op, rp, codeParams(op, rp, walk.callback, state), verifier, nonce) }
}

interface Listed {
  clients: Array<{ kind: string; clientId: string; name: string; host: string | null; people: number; blocked: boolean; firstSeenAt: string | null; lastSeenAt: string | null }>
  blockedHosts: Array<{ host: string; source: string }>
}
async function list(admin: Browser): Promise<Listed> {
  const res = await admin.fetch('/api/admin/clients')
  expect(res.status, await res.clone().text()).toBe(200)
  return ((await res.json()) as { data: Listed }).data
}

describe('a metadata-document host blocked from the console', () => {
  it('lists the agent with its people, refuses its refresh and a new authorization once blocked, and lets it in again after the unblock', async () => {
    const admin = await administrator()
    const person = new Browser(op.url)
    await signUp(person)
    const first = await authorize(person)
    expect(first.tokens?.refresh_token, 'a refresh token').toBeTruthy()
    const configured = await op.register({ name: 'Orders app' })

    // the console lists the configured app and the agent, which one person allowed
    await expect.poll(async () => (await list(admin)).clients.find((c) => c.clientId === agent().client.client_id)?.lastSeenAt).toBeTruthy()
    const before = await list(admin)
    expect(before.clients.find((c) => c.clientId === configured.client.client_id)).toMatchObject({ kind: 'configured', name: 'Orders app', host: null, blocked: false })
    expect(before.clients.find((c) => c.clientId === agent().client.client_id)).toMatchObject({ kind: 'metadata_document', name: 'Block Agent', host: '127.0.0.1', people: 1, blocked: false })
    expect(before.blockedHosts).toEqual([{ host: 'bad.example', source: 'config', blockedAt: null }])

    const blocked = await admin.post('/api/admin/clients/block', { host: '127.0.0.1' })
    expect(blocked.status, await blocked.clone().text()).toBe(200)
    expect(((await blocked.json()) as { data: unknown }).data).toEqual({ host: '127.0.0.1', revokedGrants: 1 })
    const after = await list(admin)
    expect(after.clients.find((c) => c.clientId === agent().client.client_id)).toMatchObject({ people: 0, blocked: true })
    expect(after.blockedHosts.map((b) => [b.host, b.source])).toEqual([['bad.example', 'config'], ['127.0.0.1', 'admin']])

    // the refresh token issued before the block: the client itself is refused, with the library's
    // answer to a client it does not let in (400 invalid_client, "client is not allowed")
    const refreshed = await oauth.refreshTokenGrantRequest(op.as, agent().client, agent().auth, first.tokens!.refresh_token!, insecure)
    const refusal = await refreshed.text()
    expect(refreshed.status, refusal).toBe(400)
    expect(JSON.parse(refusal)).toEqual({ error: 'invalid_client', error_description: 'client is not allowed' })
    // a new authorization: the provider's error page, and the browser is sent nowhere
    const again = await authorize(person)
    expect(again.refused?.status).toBe(400)
    expect(await again.refused!.text()).toContain('invalid_client')

    // a block from the configuration is lifted there only; one never made is not found
    const inConfig = await admin.post('/api/admin/clients/blocked-hosts/bad.example/unblock')
    expect(inConfig.status).toBe(409)
    expect(((await inConfig.json()) as { code: string }).code).toBe('client_host_blocked_in_config')
    const never = await admin.post('/api/admin/clients/blocked-hosts/never.example/unblock')
    expect(never.status).toBe(404)
    expect(((await never.json()) as { code: string }).code).toBe('client_host_not_blocked')

    const unblocked = await admin.post('/api/admin/clients/blocked-hosts/127.0.0.1/unblock')
    expect(unblocked.status, await unblocked.clone().text()).toBe(200)
    const later = await authorize(person)
    expect(later.tokens?.access_token, `stopped at ${later.refused?.status}`).toBeTruthy()
    // the old refresh token stays revoked: unblocking gives back no grant
    const old = await oauth.refreshTokenGrantRequest(op.as, agent().client, agent().auth, first.tokens!.refresh_token!, insecure)
    expect(old.status).toBe(400)
    expect(((await old.json()) as { error: string }).error).toBe('invalid_grant')
  })

  it('refuses a host that is no host name with the field named', async () => {
    const admin = await administrator()
    const res = await admin.post('/api/admin/clients/block', { host: 'https://127.0.0.1/agent.json' })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { code: string }).code).toBe('validation_failed')
  })

  it('answers a person who is no administrator with 403 and changes nothing', async () => {
    const browser = new Browser(op.url)
    await signUp(browser)
    expect((await browser.fetch('/api/admin/clients')).status).toBe(403)
    expect((await browser.post('/api/admin/clients/block', { host: 'nobody.example' })).status).toBe(403)
    expect((await browser.post('/api/admin/clients/blocked-hosts/127.0.0.1/unblock')).status).toBe(403)
    const admin = await administrator()
    expect((await list(admin)).blockedHosts.map((b) => b.host)).not.toContain('nobody.example')
  })
})

describe('the consent step of an API scope', () => {
  it('carries the words the API configuration gives a scope, and none for a scope without them', async () => {
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url } = await authorizationUrl(op, agent(), { scope: 'openid orders:read orders:write', resource: API })
    const walk = await walkAuthorization(browser, url, REDIRECT, { consent: 'stop' })
    expect(walk.consentUid, `stopped at ${walk.stopped?.status}`).toBeDefined()
    const view = ((await (await browser.fetch(`/interaction/${walk.consentUid}/details`)).json()) as { data: { resources: unknown[] } }).data
    expect(view.resources).toEqual([{ indicator: API, scopes: ['orders:read', 'orders:write'], descriptions: { 'orders:read': { en: 'See your orders', de: 'Ihre Bestellungen sehen' } } }])
  })
})
