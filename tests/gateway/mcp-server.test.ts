/**
 * examples/mcp-server, run as its own process, driven by the official MCP TypeScript SDK's client
 * (its streamable HTTP transport and OAuth client provider) against our OpenID Provider, as an AI
 * agent that was never registered: the SDK meets the server's 401, follows `resource_metadata` to
 * the RFC 9728 document and from it to the provider, uses a Client ID Metadata Document (served by
 * this test over https on loopback) as its client id, and sends the person to sign in with code +
 * PKCE + `resource`. The person signs in and consents through the gateway's routes (as the
 * interaction page does; tests/e2e/mcp-agent.test.ts does it on the pages in Chromium); the SDK
 * redeems the code, calls the tools, refreshes its token, and after "Remove access" on the account
 * page its call is refused.
 *
 * The MCP server's tokens are opaque and checked at the introspection endpoint, so a removal is
 * seen at once (a JWT would live until it expires: docs/oidc-provider.md, "Protect your API").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpsServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'
import { freePort } from '../helpers/fake-iam'
import { AgentAuth } from '../helpers/mcp-agent-auth'
import { Browser, signUp, startOpStack, walkAuthorization, type OpStack } from '../helpers/oidc-op'
import { waitUntil } from '../helpers/wait'

const REDIRECT = 'http://127.0.0.1:9/mcp-callback'
const MCP_CLIENT_ID = 'notes-mcp-server'

let dir: string
let docs: Server
let documentUrl: string
let op: OpStack
let child: ChildProcess
let output = ''
let mcpUrl: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-cimd-'))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
  docs = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
    const body = { client_id: documentUrl, client_name: 'Notes Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve))
  documentUrl = `https://127.0.0.1:${(docs.address() as AddressInfo).port}/agent/client.json`

  const port = await freePort()
  mcpUrl = `http://127.0.0.1:${port}/mcp`
  op = await startOpStack({
    iamConfig: () => ({
      oidc: {
        allowLoopbackRequests: true,
        resourceServers: [{ indicator: mcpUrl, scopes: ['notes:read'], accessTokenFormat: 'opaque', introspectionClients: [MCP_CLIENT_ID] }],
      },
    }),
    iamEnv: { NODE_EXTRA_CA_CERTS: cert },
  })
  const introspector = await op.register({ name: 'Notes MCP server', grants: ['client_credentials'], clientId: MCP_CLIENT_ID })
  child = spawn(process.execPath, [join(ROOT, 'examples', 'mcp-server', 'server.mjs')], {
    env: { ...process.env, ISSUER: op.issuer, RESOURCE: mcpUrl, INTROSPECTION_CLIENT_ID: MCP_CLIENT_ID, INTROSPECTION_CLIENT_SECRET: introspector.secret! },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitUntil(() => output.includes('Notes MCP server on') || child.exitCode !== null, 'the MCP server to listen')
  expect(child.exitCode, output).toBeNull()
}, 240_000)

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  await op?.stop()
  docs?.closeAllConnections()
  await new Promise((resolve) => docs?.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

async function connect(provider: AgentAuth): Promise<Client> {
  const client = new Client({ name: 'notes-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))
  return client
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>

describe('an AI agent through the official MCP SDK', () => {
  it('finds the provider from the 401, signs the person in with its metadata document, calls the tools, refreshes, and is refused after Remove access', async () => {
    const browser = new Browser(op.url)
    await signUp(browser)
    const provider = new AgentAuth(documentUrl, REDIRECT)

    // 1. the first connection meets the 401; the SDK discovers the provider and sends the person there
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError)
    const sentTo = provider.sentTo!
    expect(sentTo.origin + sentTo.pathname).toBe(op.as.authorization_endpoint)
    expect(Object.fromEntries(sentTo.searchParams)).toMatchObject({
      client_id: documentUrl,
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: mcpUrl,
      scope: 'notes:read offline_access',
      prompt: 'consent',
    })

    // 2. the person signs in (the browser already is) and consents on the gateway's routes
    const walk = await walkAuthorization(browser, sentTo.href, REDIRECT)
    expect(walk.callback, `stopped at ${walk.stopped?.status} ${await walk.stopped?.clone().text()}`).toBeDefined()
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })
    await transport.finishAuth(walk.callback!.searchParams.get('code')!)
    expect(provider.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: expect.stringContaining('notes:read') })
    expect(provider.saved?.refresh_token).toBeTruthy()

    // 3. the tools, with the token
    const client = await connect(provider)
    const who = textOf(await client.callTool({ name: 'whoami' }))
    expect(who).toMatchObject({ clientId: documentUrl, scopes: expect.arrayContaining(['notes:read']) })
    expect(typeof who.subject).toBe('string')
    const notes = await client.callTool({ name: 'list_notes' })
    expect(notes.isError ?? false).toBe(false)
    expect((notes.structuredContent as { notes: unknown[] }).notes.length).toBeGreaterThan(0)

    // 4. a refresh through the SDK: a new access token that works as the old one did
    const before = provider.saved!.access_token
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED')
    expect(provider.saved!.access_token).not.toBe(before)
    expect(textOf(await client.callTool({ name: 'whoami' })).subject).toBe(who.subject)
    await client.close()

    // 5. "Remove access" on the account page: the next call is refused, and the SDK cannot refresh its way back
    expect((await browser.post('/api/auth/apps/revoke', { clientId: documentUrl })).status).toBe(200)
    const refused = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    // the SDK's refresh is refused (the grant ended), so it drops the tokens and sends the person to sign in again
    provider.sentTo = undefined
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.saved).toBeUndefined()
    // (read through a cast: the compiler still sees the undefined assigned above)
    expect((provider.sentTo as URL | undefined)?.searchParams.get('client_id')).toBe(documentUrl)
  })

  it('a token without notes:read may ask who the person is, but list_notes answers 403 insufficient_scope naming the scope', async () => {
    const worker = await op.register({ name: 'Notes worker', grants: ['client_credentials'], scope: 'notes:read' })
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource: mcpUrl })
    const tokenRes = await fetch(op.as.token_endpoint!, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${worker.client.client_id}:${worker.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    })
    const { access_token: token } = (await tokenRes.json()) as { access_token: string }
    const call = (name: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
      })
    const who = await call('whoami')
    expect(who.status).toBe(200)
    expect(JSON.stringify(await who.json())).toContain(worker.client.client_id)
    const listed = await call('list_notes')
    expect(listed.status).toBe(403)
    expect(listed.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    expect(listed.headers.get('www-authenticate')).toContain('scope="notes:read"')
  })

  it('publishes its metadata at the well-known URL the 401 names', async () => {
    const first = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(first.status).toBe(401)
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1]
    expect(metadataUrl).toBe(`${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`)
    expect(await (await fetch(metadataUrl!)).json()).toMatchObject({ resource: mcpUrl, authorization_servers: [op.issuer], scopes_supported: ['notes:read', 'offline_access'] })
  })
})
