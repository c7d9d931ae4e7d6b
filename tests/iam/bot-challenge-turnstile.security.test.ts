/**
 * The bot check by a Turnstile-style provider (botChallenge.provider "turnstile",
 * features/bot-challenge/turnstile.ts) over HTTP: the IAM hands out the site key, asks the
 * provider's siteverify about each token once, and answers an outage of the provider with 503,
 * never a pass. The provider is a fake siteverify server on loopback (the only thing standing in
 * for the internet), reached through the outbound guard with loopback allowed for tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, STRONG_PASSWORD, uniqueEmail, type Client } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'

const SITE_KEY = '1x00000000000000000000AA'
const SECRET_KEY = 'test-turnstile-secret-0123456789'

/** How the fake provider answers next: as Cloudflare does, or as an outage does. */
type Mode = 'normal' | 'status500' | 'garbage' | 'hang' | 'bad-secret'

interface Siteverify {
  url: string
  mode: Mode
  calls: Array<Record<string, string>>
  stop(): Promise<void>
}

/** Tokens starting `good-` pass once (a second use is `timeout-or-duplicate`, as the provider answers); any other fails. */
async function startSiteverify(): Promise<Siteverify> {
  const spent = new Set<string>()
  const hanging: ServerResponse[] = []
  const state: Siteverify = { url: '', mode: 'normal', calls: [], stop: async () => undefined }
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (raw += chunk))
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw))
      state.calls.push({ method: req.method ?? '', contentType: req.headers['content-type'] ?? '', ...form })
      if (state.mode === 'hang') return void hanging.push(res)
      if (state.mode === 'status500') return answer(res, 500, 'upstream trouble')
      if (state.mode === 'garbage') return answer(res, 200, '<html>not json</html>')
      if (state.mode === 'bad-secret' || form.secret !== SECRET_KEY) return answer(res, 200, { success: false, 'error-codes': ['invalid-input-secret'] })
      const token = form.response ?? ''
      if (!token.startsWith('good-')) return answer(res, 200, { success: false, 'error-codes': ['invalid-input-response'] })
      if (spent.has(token)) return answer(res, 200, { success: false, 'error-codes': ['timeout-or-duplicate'] })
      spent.add(token)
      answer(res, 200, { success: true, challenge_ts: new Date().toISOString(), hostname: 'id.example.com', 'error-codes': [] })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`
  state.stop = async () => {
    for (const res of hanging) res.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return state
}

let iam: IamServer
let provider: Siteverify
beforeAll(async () => {
  provider = await startSiteverify()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      botChallenge: {
        enabled: true,
        provider: 'turnstile',
        loginAfterFailures: 3,
        // a short deadline: the hanging provider's test waits for it
        turnstile: { siteKey: SITE_KEY, secretKey: SECRET_KEY, verifyUrl: provider.url, timeoutMs: 500, allowLoopbackRequests: true },
      },
      rate_limiters: { signup: { points: 1000, duration: 3600, blockDuration: 3600 } },
    },
  })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await provider?.stop()
})
beforeEach(() => {
  provider.mode = 'normal'
  provider.calls.length = 0
})

let tokens = 0
const goodToken = () => `good-${Date.now().toString(36)}-${tokens++}`
const signup = (client: Client, email: string, botProof?: string) => call(iam, 'POST', '/signup', { client, body: { ...signupBody(email), ...(botProof ? { botProof } : {}) } })

async function refusal(res: Response): Promise<[number, unknown, unknown]> {
  const body = (await res.json()) as Json
  return [res.status, body.code, body.botCheck]
}

describe('the Turnstile-style provider', () => {
  it('hands the page the site key, never the secret key', async () => {
    const res = await call(iam, 'GET', '/auth/bot-challenge', { client: await newDevice(iam, { ip: '198.51.100.70' }) })
    const text = await res.text()
    expect(res.status).toBe(200)
    expect((JSON.parse(text) as Json).data).toEqual({ enabled: true, provider: 'turnstile', siteKey: SITE_KEY })
    expect(text).not.toContain(SECRET_KEY)
  })

  it('asks the provider once per sign-up, with the secret key, the token and the client address, and signs up on its yes', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.71' })
    expect(await refusal(await signup(client, uniqueEmail('ts')))).toEqual([400, 'bot_check_required', 'missing'])
    // nothing to ask without a token
    expect(provider.calls).toHaveLength(0)
    const token = goodToken()
    const res = await signup(client, uniqueEmail('ts'), token)
    expect(res.status, await res.clone().text()).toBe(201)
    expect(provider.calls).toEqual([{ method: 'POST', contentType: 'application/x-www-form-urlencoded', secret: SECRET_KEY, response: token, remoteip: '198.51.100.71' }])
  })

  it('refuses a token the provider rejects, and one it says was spent already', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.72' })
    expect(await refusal(await signup(client, uniqueEmail('ts'), 'forged-token'))).toEqual([400, 'bot_check_failed', 'invalid'])
    const token = goodToken()
    const first = await signup(client, uniqueEmail('ts'), token)
    // the body names the cause of a refusal (a provider past its deadline is bot_check_unavailable)
    expect(first.status, await first.text()).toBe(201)
    expect(await refusal(await signup(client, uniqueEmail('ts'), token))).toEqual([400, 'bot_check_failed', 'expired'])
  })

  it('answers 503 when the provider cannot say yes: an error status, an unreadable answer, no answer before the deadline, our secret refused; no account is made', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.73' })
    const email = uniqueEmail('outage')
    for (const mode of ['status500', 'garbage', 'hang', 'bad-secret'] as const) {
      provider.mode = mode
      const res = await signup(client, email, goodToken())
      const body = (await res.json()) as Json
      expect([mode, res.status, body.code]).toEqual([mode, 503, 'bot_check_unavailable'])
    }
    // none of them made the account: with the provider back, the address signs up
    provider.mode = 'normal'
    expect((await signup(client, email, goodToken())).status).toBe(201)
  })

  it('asks for a token on password sign-in after three failures, and checks it with the provider', async () => {
    const owner = await newDevice(iam, { ip: '198.51.100.74' })
    const email = uniqueEmail('ts-login')
    expect((await signup(owner, email, goodToken())).status).toBe(201)
    const client = await newDevice(iam, { ip: '198.51.100.75' })
    const login = (botProof?: string) => call(iam, 'POST', '/login', { client, body: { email, password: STRONG_PASSWORD, ...(botProof ? { botProof } : {}) } })
    for (let i = 0; i < 3; i++) expect((await call(iam, 'POST', '/login', { client, body: { email, password: 'not the password at all' } })).status).toBe(401)
    expect(await refusal(await login())).toEqual([400, 'bot_check_required', 'missing'])
    provider.mode = 'status500'
    expect((await login(goodToken())).status).toBe(503)
    provider.mode = 'normal'
    expect((await login(goodToken())).status).toBe(200)
  })
})
