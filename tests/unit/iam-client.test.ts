import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { HMAC_HEADERS } from '../../iam/client/hmac'
import { createIamClient, IamTargetError, IamUnavailableError } from '../../iam/client/iam-client'
import { verifiesSigned } from '../helpers/hmac-verify'

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
  /** the client's port: one per connection */
  port: number | undefined
}

const hmac = { clientId: 'gateway', sharedSecret: 'a-shared-secret-of-at-least-32-characters' }
let server: Server
let base: string
let seen: Seen[] = []
let reply: (res: ServerResponse) => void

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, port: req.socket.remotePort })
      reply(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  seen = []
  reply = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
})

/** What the IAM does: recompute the version 3 signature over the request it received. */
function verifies(request: Seen, secret = hmac.sharedSecret): boolean {
  return verifiesSigned(request, { clientId: hmac.clientId, sharedSecret: secret })
}

describe('createIamClient', () => {
  it.each(['/oidc/%2e%2e/openapi.json', '/oidc/.%2e/auth/OAuth/demo', '/orgs/../check', '/orgs/%2F/members', '/oidc/%252e%252e/x'])(
    'refuses to sign or send %s, whose path is not canonical',
    async (target) => {
      const client = createIamClient({ baseUrl: `${base}/iam`, hmac })
      await expect(client.forward({ method: 'GET', target, headers: {} })).rejects.toBeInstanceOf(IamTargetError)
      await expect(client.request({ method: 'GET', path: target })).rejects.toBeInstanceOf(IamTargetError)
      expect(seen).toHaveLength(0)
    },
  )

  it('signs the path and query exactly as the IAM receives them', async () => {
    const client = createIamClient({ baseUrl: base, hmac })
    await client.request({ method: 'post', path: '/auth/OAuth/demo', query: { a: 'x y', b: '/&=' }, body: { x: 1 } })
    const [request] = seen
    expect(request!.url).toBe('/auth/OAuth/demo?a=x+y&b=%2F%26%3D')
    expect(request!.method).toBe('POST')
    expect(request!.headers[HMAC_HEADERS.clientId]).toBe('gateway')
    expect(verifies(request!)).toBe(true)
    expect(verifies(request!, 'another-secret-of-at-least-32-characters!')).toBe(false)
  })

  it('refuses a non-canonical path at every call, and sends a checked path again as it sent it the first time', async () => {
    const client = createIamClient({ baseUrl: `${base}/iam`, hmac })
    for (let i = 0; i < 3; i++) await expect(client.request({ method: 'GET', path: '/orgs/../check' })).rejects.toBeInstanceOf(IamTargetError)
    for (let i = 0; i < 3; i++) await client.request({ method: 'GET', path: '/secret/accesstoken/metadata' })
    await client.request({ method: 'GET', path: '/secret/accesstoken/metadata', query: { a: 'b' } })
    await client.request({ method: 'GET', path: '/secret/accesstoken/metadata' })
    expect(seen.map((r) => r.url)).toEqual([...Array(3).fill('/iam/secret/accesstoken/metadata'), '/iam/secret/accesstoken/metadata?a=b', '/iam/secret/accesstoken/metadata'])
    expect(seen.every((r) => verifies(r))).toBe(true)
  })

  it('keeps and signs a path prefix of the base URL', async () => {
    const client = createIamClient({ baseUrl: `${base}/iam/`, hmac })
    await client.request({ method: 'GET', path: '/health' })
    expect(seen[0]!.url).toBe('/iam/health')
    expect(verifies(seen[0]!)).toBe(true)
  })

  it('uses a fresh nonce as X-Request-ID on every request, and caller headers cannot replace the signature', async () => {
    const client = createIamClient({ baseUrl: base, hmac })
    const headers = { [HMAC_HEADERS.signature]: '0'.repeat(64), [HMAC_HEADERS.requestId]: 'fixed' }
    await client.request({ method: 'GET', path: '/health', headers })
    await client.request({ method: 'GET', path: '/health', headers })
    const ids = seen.map((r) => r.headers[HMAC_HEADERS.requestId])
    expect(ids[0]).not.toBe('fixed')
    expect(ids[0]).not.toBe(ids[1])
    expect(seen.every((r) => verifies(r))).toBe(true)
  })

  it('always signs version 3, covering the body, Cookie, Authorization, X-Forwarded-For and the purpose as sent', async () => {
    const client = createIamClient({ baseUrl: base, hmac })
    await client.request({
      method: 'POST',
      path: '/auth/OAuth/demo',
      body: { sub: 'alice' },
      cookies: { canary_id: 'c1' },
      headers: { authorization: 'Bearer t1' },
      clientIp: '203.0.113.9',
    })
    const request = seen[0]!
    expect(request.headers[HMAC_HEADERS.version]).toBe('3')
    expect(request.headers[HMAC_HEADERS.purpose]).toBe('bff')
    expect(verifies(request)).toBe(true)
    expect(verifies({ ...request, headers: { ...request.headers, [HMAC_HEADERS.purpose]: 'oauth-callback' } })).toBe(false)
    expect(verifies({ ...request, body: '{"sub":"victim"}' })).toBe(false)
    for (const name of ['cookie', 'authorization', 'x-forwarded-for']) {
      expect(verifies({ ...request, headers: { ...request.headers, [name]: 'changed' } })).toBe(false)
    }
  })

  it('signs a forwarded request as provider traffic and a request for the purpose it names', async () => {
    const client = createIamClient({ baseUrl: base, hmac })
    await client.forward({ method: 'GET', target: '/oidc/jwks', headers: {} })
    await client.request({ method: 'POST', path: '/auth/OAuth/demo', body: { sub: 'alice' }, purpose: 'oauth-callback' })
    expect(seen.map((r) => r.headers[HMAC_HEADERS.purpose])).toEqual(['provider', 'oauth-callback'])
    expect(seen.every((r) => verifies(r))).toBe(true)
  })

  it('sends no signature headers without hmac', async () => {
    await createIamClient({ baseUrl: base }).request({ method: 'GET', path: '/health' })
    expect(Object.keys(seen[0]!.headers).filter((h) => h.startsWith('x-'))).toEqual([])
  })

  it('forwards the client IP, user agent, cookies and a JSON body', async () => {
    const client = createIamClient({ baseUrl: base })
    await client.request({
      method: 'POST',
      path: '/login',
      body: { email: 'a@example.com' },
      cookies: { canary_id: 'abc123', session: 'tok-_en' },
      clientIp: '203.0.113.9',
      userAgent: 'Mozilla/5.0 test',
    })
    const { headers, body } = seen[0]!
    expect(headers['x-forwarded-for']).toBe('203.0.113.9')
    expect(headers['user-agent']).toBe('Mozilla/5.0 test')
    expect(headers.cookie).toBe('canary_id=abc123; session=tok-_en')
    expect(headers['content-type']).toBe('application/json')
    expect(JSON.parse(body)).toEqual({ email: 'a@example.com' })
  })

  it('forwards an empty browser User-Agent as empty, adding none of its own', async () => {
    await createIamClient({ baseUrl: base }).request({ method: 'GET', path: '/check', userAgent: '' })
    expect(seen[0]!.headers['user-agent']).toBe('')
  })

  it('refuses a cookie value that would smuggle another cookie', async () => {
    const client = createIamClient({ baseUrl: base })
    await expect(client.request({ method: 'GET', path: '/x', cookies: { session: 'a; admin=1' } })).rejects.toThrow(TypeError)
    expect(seen).toEqual([])
  })

  it('refuses a header value no request may carry, sending nothing', async () => {
    const client = createIamClient({ baseUrl: base })
    await expect(client.forward({ method: 'GET', target: '/x', headers: { 'user-agent': 'a\r\nx-injected: 1' } })).rejects.toBeInstanceOf(TypeError)
    await expect(client.request({ method: 'GET', path: '/x', headers: { 'x-note': 'line\nbreak' } })).rejects.toBeInstanceOf(TypeError)
    expect(seen).toHaveLength(0)
  })

  it('refuses a path with a query string or without a leading slash', async () => {
    const client = createIamClient({ baseUrl: base })
    await expect(client.request({ method: 'GET', path: '/x?y=1' })).rejects.toThrow(TypeError)
    await expect(client.request({ method: 'GET', path: 'x' })).rejects.toThrow(TypeError)
    await expect(client.request({ method: 'GET', path: '//evil.example/x' })).rejects.toThrow(TypeError)
  })

  it('returns the status, parsed JSON body and every Set-Cookie header', async () => {
    reply = (res) => {
      res.setHeader('set-cookie', ['session=n1; HttpOnly', 'canary_id=c; Path=/'])
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end('{"ok":true,"accessToken":"t"}')
    }
    const res = await createIamClient({ baseUrl: base }).request<{ accessToken: string }>({ method: 'POST', path: '/signup', body: {} })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ ok: true, accessToken: 't' })
    expect(res.setCookies).toEqual(['session=n1; HttpOnly', 'canary_id=c; Path=/'])
  })

  it('gives a null body for plain text and for malformed JSON', async () => {
    reply = (res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden')
    const client = createIamClient({ baseUrl: base })
    expect(await client.request({ method: 'GET', path: '/x' })).toMatchObject({ status: 403, body: null })
    reply = (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{not json')
    expect(await client.request({ method: 'GET', path: '/x' })).toMatchObject({ status: 500, body: null })
  })

  it('throws IamUnavailableError when nothing listens', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const client = createIamClient({ baseUrl: `http://127.0.0.1:${port}` })
    await expect(client.request({ method: 'GET', path: '/health' })).rejects.toBeInstanceOf(IamUnavailableError)
    expect(await client.health()).toBe(false)
  })

  it('throws IamUnavailableError when the IAM does not answer within timeoutMs', async () => {
    reply = () => {} // never answers
    const client = createIamClient({ baseUrl: base, timeoutMs: 100 })
    await expect(client.request({ method: 'GET', path: '/slow' })).rejects.toBeInstanceOf(IamUnavailableError)
    server.closeAllConnections()
  })

  it('keeps its connections to the IAM between calls: ten calls in a row open at most two', async () => {
    // undici's pool frees a connection a microtask after its answer ends, so the next call in a row
    // may find it still busy and take a second one; from then on the two are reused
    const client = createIamClient({ baseUrl: base })
    for (let i = 0; i < 10; i++) await client.request({ method: 'GET', path: '/health' })
    expect(seen).toHaveLength(10)
    expect(new Set(seen.map((r) => r.port)).size).toBeLessThanOrEqual(2)
  })

  it('throws IamUnavailableError when the connection is lost in the middle of the answer', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"ok":')
      setImmediate(() => res.socket?.destroy())
    }
    await expect(createIamClient({ baseUrl: base }).request({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(IamUnavailableError)
  })

  it('forward passes the raw answer on: its bytes, status and every Set-Cookie, a redirect returned, not followed', async () => {
    reply = (res) => {
      res.setHeader('set-cookie', ['a=1; HttpOnly', 'b=2'])
      res.writeHead(303, { location: '/elsewhere', 'content-type': 'text/html' }).end('<p>moved</p>')
    }
    const client = createIamClient({ baseUrl: base, hmac })
    const body = new TextEncoder().encode('x=1&y=2')
    const answer = await client.forward({ method: 'post', target: '/oidc/auth?x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, clientIp: '203.0.113.9' })
    expect({ status: answer.status, location: answer.headers.get('location'), body: Buffer.from(answer.body).toString(), setCookies: answer.setCookies })
      .toEqual({ status: 303, location: '/elsewhere', body: '<p>moved</p>', setCookies: ['a=1; HttpOnly', 'b=2'] })
    expect(seen.map((r) => [r.method, r.url, r.body, r.headers['content-length'], r.headers['x-forwarded-for']])).toEqual([['POST', '/oidc/auth?x=1', 'x=1&y=2', '7', '203.0.113.9']])
    expect(verifies(seen[0]!)).toBe(true)
  })

  it('health() is true only for a 200 answer', async () => {
    const client = createIamClient({ baseUrl: base, hmac })
    reply = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('OK')
    expect(await client.health()).toBe(true)
    reply = (res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"reason":"Invalid signature"}')
    expect(await client.health()).toBe(false)
    expect(seen.every((r) => r.url === '/health' && verifies(r))).toBe(true)
  })
})
