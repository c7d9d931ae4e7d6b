/**
 * Client ID Metadata Documents (features/oidc/client-metadata-documents.ts): a client whose id is
 * the https URL of its own JSON document signs a person in with code + PKCE, meets the consent page
 * as what it is (its host, not verified by us), and is refused when its document breaks a rule.
 * The documents are served over https on loopback with a certificate made here, which the IAM
 * trusts through NODE_EXTRA_CA_CERTS; `oidc.allowLoopbackRequests` lets the outbound guard reach
 * loopback (the guard's refusals of private addresses are tests/unit/outbound.test.ts's).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorizationUrl, Browser, codeParams, redeem, signUp, startOpStack, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'
import { hostMatches, mayFetchDocument } from '../../iam/features/oidc/client-metadata-documents'

const REDIRECT = 'http://127.0.0.1:9/cb'
let dir: string
let docs: Server
let base: string
let op: OpStack
const hits = new Map<string, number>()

/** The document each path serves; `client_id` is the URL it is served at unless a case says otherwise. */
function document(path: string): { status: number; body?: Record<string, unknown> | string; headers?: Record<string, string> } {
  const own = { client_id: `${base}${path}`, client_name: 'Test Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
  switch (path) {
    case '/agent.json':
      return { status: 200, body: own, headers: { 'cache-control': 'max-age=300' } }
    case '/other-id.json':
      return { status: 200, body: { ...own, client_id: `${base}/agent.json` } }
    case '/first-party.json':
      return { status: 200, body: { ...own, first_party: true } }
    case '/shared-secret.json':
      return { status: 200, body: { ...own, token_endpoint_auth_method: 'client_secret_basic' } }
    case '/moved.json':
      return { status: 302, headers: { location: `${base}/agent.json` } }
    case '/large.json':
      return { status: 200, body: { ...own, padding: 'x'.repeat(6 * 1024) } }
    default:
      return { status: 404 }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cimd-'))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
  docs = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname
    hits.set(path, (hits.get(path) ?? 0) + 1)
    const answer = document(path)
    const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(body)
  })
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve))
  base = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`
  op = await startOpStack({ iamConfig: () => ({ oidc: { allowLoopbackRequests: true } }), iamEnv: { NODE_EXTRA_CA_CERTS: cert } })
}, 240_000)

afterAll(async () => {
  await op?.stop()
  docs?.closeAllConnections()
  await new Promise((resolve) => docs?.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const agent = (path: string): RegisteredClient => ({ client: { client_id: `${base}${path}` }, auth: oauth.None(), secret: null, redirectUri: REDIRECT })

describe('a client known by its metadata document', () => {
  it('is announced in the discovery document', () => {
    expect((op.as as Record<string, unknown>).client_id_metadata_document_supported).toBe(true)
  })

  it('signs a person in with code and PKCE after the consent page, which names its host as not verified; the document is fetched once while cached; the account page lists it by its host and can take its access back', async () => {
    const browser = new Browser(op.url)
    await signUp(browser)
    const rp = agent('/agent.json')
    for (let round = 0; round < 2; round++) {
      const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
      let walk = await walkAuthorization(browser, url, REDIRECT, { consent: 'stop' })
      if (round === 0) {
        expect(walk.consentUid, `stopped at ${walk.stopped?.status}`).toBeDefined()
        const view = ((await (await browser.fetch(`/interaction/${walk.consentUid}/details`)).json()) as { data: { prompt: string; client: Record<string, unknown> } }).data
        expect(view.prompt).toBe('consent')
        expect(view.client).toEqual({ name: 'Test Agent', firstParty: false, metadataDocumentHost: new URL(base).host })
        const step = await browser.post(`/interaction/${walk.consentUid}/consent`)
        expect(step.status).toBe(200)
        walk = await walkAuthorization(browser, ((await step.json()) as { data: { redirectTo: string } }).data.redirectTo, REDIRECT)
      }
      expect(walk.callback, `round ${round} stopped at ${walk.stopped?.status}`).toBeDefined()
      const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
      expect(tokens.access_token).toBeTruthy()
    }
    expect(hits.get('/agent.json')).toBe(1)

    // the account page lists the agent by its host, and "Remove access" ends what it holds
    const listed = (await (await browser.fetch('/api/auth/apps')).json()) as { data: { apps: Array<Record<string, unknown>> } }
    expect(listed.data.apps).toEqual([expect.objectContaining({ clientId: rp.client.client_id, name: new URL(base).host, metadataDocumentHost: new URL(base).host })])
    expect((await browser.post('/api/auth/apps/revoke', { clientId: rp.client.client_id })).status).toBe(200)
    expect(((await (await browser.fetch('/api/auth/apps')).json()) as { data: { apps: unknown[] } }).data.apps).toEqual([])
  })

  it.each([
    ['a document whose client_id is another URL', '/other-id.json'],
    ['a document that makes itself a first-party app', '/first-party.json'],
    ['a document with shared-secret authentication', '/shared-secret.json'],
    ['a redirect instead of the document', '/moved.json'],
    ['a document over 5 KB', '/large.json'],
  ])('refuses %s, and sends the browser nowhere', async (_label, path) => {
    const browser = new Browser(op.url)
    const { url } = await authorizationUrl(op, agent(path))
    const res = await browser.fetch(url)
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
    expect(await res.text()).toContain('invalid_client')
    expect(hits.get(path)).toBeGreaterThanOrEqual(1)
  })
})

describe('which hosts may be asked for a document', () => {
  const settings = (allowedHosts: string[], blockedHosts: string[]) => ({ enabled: true, allowedHosts, blockedHosts })

  it('matches a host exactly, and a wildcard below its domain only', () => {
    expect(hostMatches('mcp.example.com', 'mcp.example.com')).toBe(true)
    expect(hostMatches('MCP.example.com', 'mcp.example.com')).toBe(true)
    expect(hostMatches('a.mcp.example.com', '*.example.com')).toBe(true)
    expect(hostMatches('example.com', '*.example.com')).toBe(false)
    expect(hostMatches('badexample.com', '*.example.com')).toBe(false)
  })

  it('asks any host unless blocked, and only the allowed ones when a list is set', () => {
    expect(mayFetchDocument('https://agent.example/client.json', settings([], []))).toBe(true)
    expect(mayFetchDocument('https://agent.example/client.json', settings([], ['agent.example']))).toBe(false)
    expect(mayFetchDocument('https://a.tools.example/c.json', settings(['*.tools.example'], []))).toBe(true)
    expect(mayFetchDocument('https://agent.example/c.json', settings(['*.tools.example'], []))).toBe(false)
    expect(mayFetchDocument('https://a.tools.example/c.json', settings(['*.tools.example'], ['a.tools.example']))).toBe(false)
  })
})
