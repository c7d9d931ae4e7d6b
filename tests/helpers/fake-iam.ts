/**
 * A stand-in for the IAM's two routes the OAuth flow calls (node:http on 127.0.0.1), recording
 * every request: GET /check issues `canary_id`, POST /auth/OAuth/:provider
 * answers like the IAM's route (201 + `{ ok, date, accessToken, accessIat, expiresInMs }` + Set-Cookie
 * `session`) and keeps the user by email. HMAC headers are verified as the IAM does (version 2, tests/helpers/hmac-verify.ts).
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HMAC_HEADERS } from '../../iam/client/hmac'
import { verifiesSigned } from './hmac-verify'

export interface FakeIamRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  cookies: Record<string, string>
  body: unknown
  /** null when the request carried no HMAC headers */
  hmacValid: boolean | null
}

export interface FakeIam {
  url: string
  requests: FakeIamRequest[]
  /** users created by POST /auth/OAuth/:provider, by email */
  users: Map<string, Record<string, unknown>>
  /** replaces the answer of POST /auth/OAuth/:provider while set; 'drop' closes the connection (unreachable) */
  oauthAnswer?: { status: number; body?: unknown } | 'drop'
  /** replaces the answer of GET /check while set ('drop' closes the connection) */
  checkAnswer?: { status: number } | 'drop'
  hmac: { clientId: string; sharedSecret: string }
  stop(): Promise<void>
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  return out
}

/** Starts the fake IAM on a free loopback port. */
export async function startFakeIam(): Promise<FakeIam> {
  const hmac = { clientId: 'gateway', sharedSecret: randomBytes(32).toString('hex') }
  const fake: FakeIam = { url: '', requests: [], users: new Map(), hmac, stop: async () => {} }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: unknown = raw
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        // not JSON: the raw text stays the body
      }
      const hmacValid =
        typeof req.headers[HMAC_HEADERS.signature] === 'string'
          ? verifiesSigned({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) }, hmac)
          : null
      const cookies = parseCookies(req.headers.cookie)
      const path = (req.url ?? '/').split('?')[0] ?? '/'
      fake.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, cookies, body, hmacValid })
      const json = (status: number, payload: unknown, headers: Record<string, string | string[]> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(payload))
      }
      if (req.method === 'GET' && path === '/health') return json(200, { ok: true })
      if (req.method === 'GET' && path === '/check') {
        if (fake.checkAnswer === 'drop') return void req.socket.destroy()
        if (fake.checkAnswer) return json(fake.checkAnswer.status, { banned: true })
        const canary = cookies['canary_id'] ?? randomBytes(32).toString('hex')
        const setCookie = cookies['canary_id']
          ? []
          : [`canary_id=${canary}; Max-Age=7776000; Path=/; HttpOnly; Secure; SameSite=Lax`]
        return json(200, { results: { success: true, banned: false, time: Date.now(), ipAddress: '127.0.0.1' }, message: 'ok' }, { 'set-cookie': setCookie })
      }
      const oauth = /^\/auth\/OAuth\/([^/]+)$/.exec(path)
      if (req.method === 'POST' && oauth) {
        if (fake.oauthAnswer === 'drop') return void req.socket.destroy()
        if (fake.oauthAnswer) return json(fake.oauthAnswer.status, fake.oauthAnswer.body ?? { ok: false, date: new Date().toISOString(), error: 'refused' })
        if (!cookies['canary_id']) return json(400, { ok: false, date: new Date().toISOString(), error: 'canary_id cookie required' })
        const user = body as Record<string, unknown>
        if (!user || typeof user.email !== 'string') return json(400, { ok: false, date: new Date().toISOString(), error: 'email required' })
        fake.users.set(user.email, { ...user, provider: decodeURIComponent(oauth[1] ?? '') })
        const accessToken = `iam-at-${randomBytes(8).toString('hex')}`
        return json(
          201,
          { ok: true, date: new Date().toISOString(), accessToken, accessIat: Date.now(), expiresInMs: 900_000 },
          { 'set-cookie': [`session=${randomBytes(32).toString('base64url')}; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Strict`] },
        )
      }
      json(404, { error: 'Not found' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.stop = () => new Promise((resolve) => server.close(() => resolve()))
  return fake
}

// Ports handed out by freePort come from below Linux's ephemeral range (32768-60999 by default),
// where the kernel never picks a port for a `listen(0)` or an outgoing connection. A port taken from
// that range with listen(0) stays free only until some other process asks for any port: the suite
// starts ~100 servers, and a gateway whose port was picked seconds before it listened once failed
// with EADDRINUSE. Below the range, only another freePort caller can take it (1 in 12,000 per pair).
const PICK_FROM = 20000
const PICK_SPAN = 12000

function tryListen(port: number): Promise<number | undefined> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined))
    server.listen(port, '127.0.0.1', () => {
      const chosen = (server.address() as AddressInfo).port
      server.close(() => resolve(chosen))
    })
  })
}

/** A free loopback port (the gateway's redirectUri must be known before it starts). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await tryListen(PICK_FROM + Math.floor(Math.random() * PICK_SPAN))
    if (port !== undefined) return port
  }
  const port = await tryListen(0)
  if (port === undefined) throw new Error('no free loopback port')
  return port
}
