#!/usr/bin/env node
/**
 * An MCP server (the official MCP TypeScript SDK, streamable HTTP transport) that AI agents reach
 * with the identity platform's tokens: plain Node, no build step, the platform's verifier as its
 * protected-resource helper.
 *
 * - POST /mcp without a valid token: 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, so
 *   an MCP client finds this server's RFC 9728 metadata, and from it the OpenID Provider, and asks
 *   it for a token with `resource` = this server (code + PKCE, the person signs in and consents);
 * - GET /.well-known/oauth-protected-resource/mcp: that metadata;
 * - the tool `whoami` answers who the person is (the token's subject, the app, the scopes);
 * - the tool `list_notes` needs the scope `notes:read`: a token without it gets 403
 *   `insufficient_scope` naming the scope, so the client can ask the person for more (the MCP
 *   authorization specification's step-up).
 *
 * Run (from the repository root, with `npm start` running, which registers this server's default
 * address as a resource server):
 *
 *   node examples/mcp-server/server.mjs
 *
 * Settings (environment): ISSUER (default http://localhost:3000/oidc), RESOURCE (default
 * http://localhost:4200/mcp: this server's identifier, as registered in the provider's
 * `oidc.resourceServers`; its port is the one listened on unless PORT says otherwise), PORT (0 picks
 * a free one), INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET (optional: with them every
 * token is checked at the provider, so "Remove access" on the account page ends an agent's access
 * at once; the provider must issue opaque tokens for this resource, `accessTokenFormat: 'opaque'`).
 */
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
// In a team's own server, with the platform installed as a dependency:
//   import { createProtectedResource, credentialsFrom } from 'identity-platform/verifier'
import { createProtectedResource, credentialsFrom } from '../../verifier/index.js'

const NOTES = [
  { id: 'note-1', text: 'The engine needs 200 more punch cards.' },
  { id: 'note-2', text: 'Order brass gears before Friday.' },
]
/** JSON-RPC bodies are small; a bigger one is refused before it is parsed */
const MAX_BODY_BYTES = 1024 * 1024
/** the scope each tool needs beyond a valid token */
const TOOL_SCOPES = { list_notes: ['notes:read'] }

const send = (res, answer) => res.writeHead(answer.status, answer.headers).end(answer.body)

async function readJson(req) {
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return { tooLarge: true }
    chunks.push(chunk)
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return { body: undefined }
  }
}

/** The tools named by a JSON-RPC message or batch that calls tools. */
function calledTools(body) {
  const messages = Array.isArray(body) ? body : [body]
  return messages.filter((m) => m?.method === 'tools/call' && typeof m.params?.name === 'string').map((m) => m.params.name)
}

/** One MCP server per request (the SDK's stateless mode): the tools see the verified token as `authInfo`. */
function mcpServer() {
  const server = new McpServer({ name: 'notes', version: '1.0.0' })
  server.registerTool('whoami', { title: 'Who am I', description: 'Who the person using this agent is, as the identity platform says' }, async (extra) => {
    const auth = extra.authInfo
    const who = { subject: auth?.extra?.subject, clientId: auth?.clientId, scopes: auth?.scopes ?? [] }
    return { content: [{ type: 'text', text: JSON.stringify(who) }], structuredContent: who }
  })
  server.registerTool('list_notes', { title: 'List notes', description: 'The notes of the team (needs the scope notes:read)' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(NOTES) }],
    structuredContent: { notes: NOTES },
  }))
  return server
}

/**
 * The server as a request listener.
 * @param {{ issuer: string, resource: string, introspection?: { clientId: string, clientSecret: string } }} options
 */
export function notesMcpServer({ issuer, resource, introspection }) {
  const protectedResource = createProtectedResource({
    resource,
    authorizationServers: [issuer],
    // what an MCP client asks for when a 401 names no scope: this server's scope, and
    // offline_access, by which an OpenID Provider gives a refresh token (the SDK adds
    // prompt=consent for it, as OIDC Core 11 asks)
    scopesSupported: ['notes:read', 'offline_access'],
    resourceName: 'Notes (MCP)',
    introspection,
    // DPoP-bound tokens are taken with their proofs; plain bearer tokens too
    dpop: {},
  })
  const { pathname: mcpPath } = new URL(resource)

  return async (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost')
    try {
      if (pathname === protectedResource.metadataPath && req.method === 'GET') return send(res, protectedResource.metadataResponse())
      if (pathname !== mcpPath) return send(res, { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"not_found"}' })

      const result = await protectedResource.verifyRequest(req)
      if (!result.ok) return send(res, protectedResource.failureResponse(result))
      if (req.method !== 'POST') {
        // stateless: no server-sent event stream to resume, no session to end
        return send(res, { status: 405, headers: { allow: 'POST', 'content-type': 'application/json' }, body: '{"error":"method_not_allowed"}' })
      }
      const read = await readJson(req)
      if (read.tooLarge) return send(res, { status: 413, headers: { 'content-type': 'application/json', connection: 'close' }, body: '{"error":"too_large"}' })

      // a tool that needs a scope the token lacks: 403 insufficient_scope with the scope to ask for
      for (const tool of calledTools(read.body)) {
        const needed = TOOL_SCOPES[tool] ?? []
        if (needed.some((scope) => !result.scopes.includes(scope))) {
          const refusal = { ok: false, status: 403, reason: 'insufficient_scope', error: 'insufficient_scope', scope: needed.join(' '), message: `The tool ${tool} needs the scope ${needed.join(' ')}` }
          return send(res, protectedResource.failureResponse(refusal))
        }
      }

      req.auth = {
        token: credentialsFrom(req.headers.authorization)?.token ?? '',
        clientId: result.clientId ?? '',
        scopes: result.scopes,
        expiresAt: result.claims.exp,
        resource: new URL(resource),
        extra: { subject: result.subject },
      }
      const server = mcpServer()
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      res.on('close', () => {
        transport.close()
        server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(req, res, read.body)
    } catch (error) {
      console.error(error)
      if (!res.headersSent) send(res, { status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"server_error"}' })
    }
  }
}

async function main() {
  const issuer = process.env.ISSUER || 'http://localhost:3000/oidc'
  const resource = process.env.RESOURCE || 'http://localhost:4200/mcp'
  const { INTROSPECTION_CLIENT_ID: clientId, INTROSPECTION_CLIENT_SECRET: clientSecret } = process.env
  const introspection = clientId && clientSecret ? { clientId, clientSecret } : undefined
  const server = createServer(notesMcpServer({ issuer, resource, introspection }))
  const port = process.env.PORT !== undefined ? Number(process.env.PORT) : Number(new URL(resource).port || 80)
  server.listen(port, '127.0.0.1', () => {
    console.log(`Notes MCP server on http://127.0.0.1:${server.address().port}${new URL(resource).pathname} (resource ${resource}, tokens of ${issuer})`)
  })
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
