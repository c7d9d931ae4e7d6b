/**
 * An AI agent signs a person in with us, in Chromium: the official MCP TypeScript SDK's client meets
 * examples/mcp-server's 401, finds our provider and sends the person to it with its Client ID
 * Metadata Document (served by this file over https on loopback, trusted by the IAM through
 * NODE_EXTRA_CA_CERTS) as its client id. The authorization URL the SDK hands out is opened in
 * Chromium; the person signs in on our pages and reads on the consent step what the agent is (its
 * host, not verified, the name it gives itself as its own claim, the scopes and the MCP server it
 * asks for); allowed, the browser lands on the agent's redirect URI, whose code the SDK redeems
 * before it calls a tool. Then the console's OpenID clients page: the host blocked with
 * confirmation refuses the agent's refresh and its next authorization with `invalid_client`, and the
 * unblock lets it ask again. axe on the consent step and the clients page at 390 px.
 *
 * One stack and one browser (CI's browser pass is at its time limit); the SDK's refresh, the account
 * page's "Remove access" and the step-up answer stay in tests/gateway/mcp-server.test.ts, the BFF's
 * block answers in tests/gateway/oidc-blocked-hosts.test.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createHttpsServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signRequestV2 } from '../../iam/client/hmac'
import { ROOT } from '../helpers/build'
import { freePort } from '../helpers/fake-iam'
import { AgentAuth } from '../helpers/mcp-agent-auth'
import { Browser as BffBrowser, newEmail, signUp, startOpStack } from '../helpers/oidc-op'
import { waitUntil } from '../helpers/wait'
import { hmac, PASSWORD, seriousA11yViolations, signInFromInteraction, useE2eStack, WAIT, watchCsp } from './auth-stack'

const MCP_CLIENT_ID = 'notes-mcp-server'

let dir: string
let cert: string
let docs: Server
let documentUrl: string
let mcpUrl: string
let child: ChildProcess
let output = ''
/** the agent's loopback listener (RFC 8252 section 7.3): the redirect URI Chromium lands on */
let listener: HttpServer
let redirectUri = ''
let landed: (url: URL) => void = () => undefined

const e2e = useE2eStack(
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-e2e-'))
    const key = join(dir, 'key.pem')
    cert = join(dir, 'cert.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
    docs = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      const body = { client_id: documentUrl, client_name: 'Notes Agent', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(body))
    })
    await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve))
    listener = createHttpServer((req, res) => {
      landed(new URL(req.url ?? '/', redirectUri))
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Notes Agent</title><h1>You can close this tab</h1></html>')
    })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp-callback`
    documentUrl = `https://127.0.0.1:${(docs.address() as AddressInfo).port}/agent/client.json`
    mcpUrl = `http://127.0.0.1:${await freePort()}/mcp`
    return {
      iamConfig: () => ({
        oidc: {
          // documents on loopback: a setting for development and tests only (docs/oidc-provider.md)
          allowLoopbackRequests: true,
          resourceServers: [{ indicator: mcpUrl, scopes: ['notes:read'], accessTokenFormat: 'opaque', introspectionClients: [MCP_CLIENT_ID], scopeDescriptions: { 'notes:read': { en: 'Read your notes' } } }],
        },
      }),
      iamEnv: { NODE_EXTRA_CA_CERTS: cert },
    }
  },
  { start: startOpStack },
)

let email: string

beforeAll(async () => {
  // the person's account, made through the BFF while the MCP server starts (the file's wall time counts)
  const account = signUp(new BffBrowser(e2e.stack.url), newEmail('mcp-person'))
  // awaited below; a failed start of the MCP server first must not leave its rejection unhandled
  account.catch(() => undefined)
  const introspector = await e2e.stack.register({ name: 'Notes MCP server', grants: ['client_credentials'], clientId: MCP_CLIENT_ID })
  child = spawn(process.execPath, [join(ROOT, 'examples', 'mcp-server', 'server.mjs')], {
    env: { ...process.env, ISSUER: e2e.stack.issuer, RESOURCE: mcpUrl, INTROSPECTION_CLIENT_ID: MCP_CLIENT_ID, INTROSPECTION_CLIENT_SECRET: introspector.secret! },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitUntil(() => output.includes('Notes MCP server on') || child.exitCode !== null, 'the MCP server to listen')
  expect(child.exitCode, output).toBeNull()
  email = await account
})

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  for (const server of [docs, listener]) {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  }
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The next request to the agent's redirect URI. */
const nextCallback = () => new Promise<URL>((resolve) => (landed = resolve))

async function grantAdmin(email: string): Promise<void> {
  const body = JSON.stringify({ email, admin: true })
  const res = await fetch(`${e2e.stack.iam.url}/__test/platform-admin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body }) },
    body,
  })
  expect(res.status, await res.text()).toBe(200)
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>

describe('an AI agent through the official MCP SDK, the person in Chromium', () => {
  // made once the file's beforeAll has served the document and opened the redirect listener
  let provider: AgentAuth
  let page: Page
  beforeAll(() => {
    provider = new AgentAuth(documentUrl, redirectUri)
  })

  it('the person signs in on our pages, reads the agent as its host not verified with its scopes and server, allows it, and the SDK calls a tool', async () => {
    page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    const callback = nextCallback()

    // the SDK meets the 401 and hands out the authorization URL
    await expect(new Client({ name: 'notes-agent', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.sentTo?.searchParams.get('client_id')).toBe(documentUrl)

    // signed out in Chromium: the interaction page asks to sign in first, naming the agent by its document's host (port included)
    const host = new URL(documentUrl).host
    await page.goto(provider.sentTo!.href)
    await page.waitForURL(/\/interaction\//)
    await expect.poll(() => page.getByRole('heading', { name: `Sign in to ${host}`, exact: true }).isVisible(), { ...WAIT, message: 'the interaction page signed out' }).toBe(true)
    await signInFromInteraction(page)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()

    // back on the interaction page, the consent step: what the agent is, in words
    const allow = page.getByRole('button', { name: 'Allow' })
    await expect.poll(() => allow.isVisible(), { ...WAIT, message: 'the consent step' }).toBe(true)
    const note = page.getByTestId('unverified-app')
    expect(await note.innerText()).toContain(`This app is known only by its address, ${host}.`)
    expect(await note.innerText()).toContain('has not verified who runs it')
    expect(await note.innerText()).toContain('It calls itself “Notes Agent”; that name is its own claim.')
    expect(await note.innerText()).toContain(`Allow it only if you trust ${host}`)
    expect(await page.getByText('Stay connected when you are not using it').isVisible()).toBe(true)
    const resource = page.getByTestId('consent-resource')
    expect(await resource.innerText()).toContain(`Use ${mcpUrl} for you, to:`)
    expect(await resource.innerText()).toMatch(/Read your notes\s+notes:read/)
    expect(await seriousA11yViolations(page)).toEqual([])
    await allow.press('Enter')

    // the browser lands on the agent's redirect URI; the SDK redeems the code and calls a tool
    const code = (await callback).searchParams
    // the listener answers before Chromium commits its page: wait for that, or the next test's first
    // navigation in this page can be overtaken by this one on a loaded machine
    await page.waitForURL((url) => url.pathname === '/mcp-callback')
    expect(await page.title()).toBe('Notes Agent')
    expect(code.get('iss')).toBe(e2e.stack.issuer)
    await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }).finishAuth(code.get('code')!)
    expect(provider.saved?.refresh_token).toBeTruthy()
    const client = new Client({ name: 'notes-agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))
    expect(textOf(await client.callTool({ name: 'whoami' }))).toMatchObject({ clientId: documentUrl, scopes: expect.arrayContaining(['notes:read']) })
    await client.close()
    expect(csp).toEqual([])
  })

  it('an administrator blocks the agent host with confirmation, its refresh and next authorization get invalid_client, and the unblock lets it ask again', async () => {
    expect(provider.saved?.refresh_token, 'the first test authorized the agent').toBeTruthy()
    // the person runs the service too (one browser keeps the file short)
    await grantAdmin(email)
    await page.goto(`${e2e.stack.url}/admin/clients`)
    const item = page.getByTestId(`client-${documentUrl.replace(/[^A-Za-z0-9_-]/g, '_')}`)
    await expect.poll(() => item.isVisible(), WAIT).toBe(true)
    expect(await item.innerText()).toContain('Metadata document (not verified)')
    expect(await item.innerText()).toContain('People who allowed it: 1')

    await item.getByRole('button', { name: 'Block host 127.0.0.1' }).click()
    const confirm = page.getByRole('group', { name: /^Block 127\.0\.0\.1\?/ })
    await expect.poll(() => confirm.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText('127.0.0.1 is blocked. Grants revoked: 1.').isVisible(), WAIT).toBe(true)
    // the list is read again after the notice: its people gone with their grants
    await expect.poll(() => item.innerText(), WAIT).toContain('Its host is blocked: it gets no tokens.')
    expect(await item.innerText()).toContain('People who allowed it: 0')
    expect(await seriousA11yViolations(page)).toEqual([])

    // the refresh token from before the block: the client itself is refused
    const refreshToken = provider.saved!.refresh_token!
    const refreshed = await fetch(e2e.stack.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: documentUrl }),
    })
    expect(refreshed.status).toBe(400)
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_client')
    // the SDK reads the same answer as a client it must forget, and starts a new authorization...
    provider.sentTo = undefined
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('REDIRECT')
    expect(provider.forgotten).toContain('all')
    // ...which the provider refuses in Chromium with its error page, sending the browser nowhere
    const refused = await page.goto(provider.sentTo!.href)
    expect(refused?.status()).toBe(400)
    expect(await page.content()).toContain('invalid_client')

    // the unblock, confirmed: the agent may ask the person again
    await page.goto(`${e2e.stack.url}/admin/clients`)
    const unblock = page.getByRole('button', { name: 'Unblock the host 127.0.0.1' })
    await expect.poll(() => unblock.isVisible(), WAIT).toBe(true)
    await unblock.click()
    await page.getByRole('group', { name: /^Unblock 127\.0\.0\.1\?/ }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText('127.0.0.1 is no longer blocked.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByText('No host is blocked.').isVisible(), WAIT).toBe(true)
    // (its authorization request reaches the interaction step again: no browser needed to see that)
    const asked = await fetch(provider.sentTo!, { redirect: 'manual' })
    expect(asked.status).toBe(303)
    expect(asked.headers.get('location')).toMatch(/\/interaction\//)
    await page.close()
  })
})
