/**
 * Account helpers for IAM HTTP tests: a device (GET /check), signup/login, refresh and
 * authenticated calls, with the client IP simulated through X-Forwarded-For. The IAM must run with
 * `PROXY_CONFIG` merged into its config so it trusts that header from 127.0.0.1.
 */
import { randomBytes } from 'node:crypto'
import type { IamEndpoint, Json } from './iam-server'

/** Trust X-Forwarded-For from the test process (loopback). */
export const PROXY_CONFIG = { service: { proxy: { trust: true, ipToTrust: '127.0.0.1' } } }

export const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
export const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0'

export const STRONG_PASSWORD = 'correct horse battery staple 42'

export interface Client {
  ip: string
  ua: string
  canary?: string
}

export interface Session extends Client {
  email: string
  password: string
  accessToken: string
  refreshToken: string
}

let counter = 0
/** A unique address at a non-disposable domain. */
export const uniqueEmail = (tag = 'user') => `${tag}.${Date.now().toString(36)}.${randomBytes(3).toString('hex')}.${++counter}@example.com`

/** Value of cookie `name` among Set-Cookie headers ('' when cleared, undefined when absent). */
export function setCookieValue(res: Response, name: string): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';')
    const at = pair!.indexOf('=')
    if (pair!.slice(0, at).trim() === name) return decodeURIComponent(pair!.slice(at + 1))
  }
  return undefined
}

export function setCookieLine(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((line) => line.startsWith(`${name}=`))
}

export function cookieHeader(cookies: Record<string, string | undefined>): string {
  return Object.entries(cookies)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ')
}

/** Low-level request as a client: IP, UA and cookies; JSON body when given. */
export async function call(
  iam: IamEndpoint,
  method: string,
  path: string,
  opts: { client: Client; body?: unknown; cookies?: Record<string, string | undefined>; bearer?: string; headers?: Record<string, string> },
): Promise<Response> {
  const headers: Record<string, string> = { 'user-agent': opts.client.ua, 'x-forwarded-for': opts.client.ip, ...opts.headers }
  const cookies = { canary_id: opts.client.canary, ...opts.cookies }
  const cookie = cookieHeader(cookies)
  if (cookie) headers.cookie = cookie
  if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  return fetch(`${iam.url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) })
}

/** A new device: GET /check, returns the client with its canary. */
export async function newDevice(iam: IamEndpoint, client: Partial<Client> = {}): Promise<Client> {
  const c: Client = { ip: client.ip ?? '203.0.113.10', ua: client.ua ?? CHROME_UA }
  const res = await call(iam, 'GET', '/check', { client: c })
  if (res.status !== 200) throw new Error(`/check answered ${res.status}: ${await res.text()}`)
  return { ...c, canary: setCookieValue(res, 'canary_id') }
}

export const signupBody = (email: string, password = STRONG_PASSWORD, extra: Json = {}): Json => ({
  email,
  password,
  confirmedPassword: password,
  name: 'Test User',
  termsConsent: 'on',
  ...extra,
})

function sessionFrom(res: Response, body: Json, client: Client, email: string, password: string): Session {
  const refreshToken = setCookieValue(res, 'session')
  if (!refreshToken || typeof body.accessToken !== 'string') throw new Error(`no tokens: ${res.status} ${JSON.stringify(body)}`)
  return { ...client, email, password, accessToken: body.accessToken, refreshToken }
}

/** Signs a new user up from `client` (a device is created when it has no canary). */
export async function signupUser(
  iam: IamEndpoint,
  opts: { client?: Partial<Client>; email?: string; password?: string; remember?: boolean; headers?: Record<string, string> } = {},
): Promise<Session> {
  const client = opts.client?.canary ? (opts.client as Client) : await newDevice(iam, opts.client)
  const email = opts.email ?? uniqueEmail()
  const password = opts.password ?? STRONG_PASSWORD
  const res = await call(iam, 'POST', '/signup', { client, body: signupBody(email, password, opts.remember ? { rememberUser: 'on' } : {}), ...(opts.headers ? { headers: opts.headers } : {}) })
  const body = (await res.json()) as Json
  if (res.status !== 201) throw new Error(`signup answered ${res.status}: ${JSON.stringify(body)}`)
  return sessionFrom(res, body, client, email, password)
}

/** Logs in from `client`. */
export async function loginUser(iam: IamEndpoint, email: string, password: string, client: Client): Promise<Session> {
  const res = await call(iam, 'POST', '/login', { client, body: { email, password } })
  const body = (await res.json()) as Json
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(body)}`)
  return sessionFrom(res, body, client, email, password)
}

/** POST /auth/user/refresh-session with the session's cookies (overridable). */
export function refresh(iam: IamEndpoint, s: Session, over: Partial<Client> = {}): Promise<Response> {
  return call(iam, 'POST', '/auth/user/refresh-session', { client: { ...s, ...over }, cookies: { session: s.refreshToken } })
}

/** GET a protected route with the session's Bearer token and cookies. */
export function authedGet(iam: IamEndpoint, s: Session, path = '/secret/data', over: Partial<Client> = {}): Promise<Response> {
  return call(iam, 'GET', path, { client: { ...s, ...over }, cookies: { session: s.refreshToken }, bearer: s.accessToken })
}

export interface OwnSecurityEvent {
  id: number
  type: string
  ipAddress: string | null
  createdAt: string
  details: Record<string, unknown>
}

/** The user's own security events as their account page reads them (GET /auth/security-events), in the order they were recorded: the front door to the audit rows on any database. */
export async function ownSecurityEvents(iam: IamEndpoint, s: Session): Promise<OwnSecurityEvent[]> {
  const res = await authedGet(iam, s, '/auth/security-events?limit=100')
  if (res.status !== 200) throw new Error(`GET /auth/security-events answered ${res.status}`)
  const { data } = (await res.json()) as { data: { events: OwnSecurityEvent[] } }
  // the page orders by time; events of one request share a time, so their ids tell the order
  return data.events.sort((a, b) => a.id - b.id)
}

/** Applies a 201 refresh response to the session. */
export async function applyRefresh(s: Session, res: Response): Promise<Session> {
  const body = (await res.json()) as Json
  if (res.status !== 201) throw new Error(`refresh answered ${res.status}: ${JSON.stringify(body)}`)
  return { ...s, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}
