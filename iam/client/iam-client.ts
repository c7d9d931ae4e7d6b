/**
 * The IAM's own HTTP client: what the gateway uses for every call to the IAM.
 * Every request is HMAC-signed when `hmac` is given (IAM spec, Authentication item 9, in the
 * stronger version 2 of iam/client/hmac.ts); the signed `url` is the path + query exactly as this
 * client sends it, so a proxy in between that forwards the request target unchanged keeps the
 * signature valid.
 *
 * Plain `fetch` and node:crypto only: no h3 or Nuxt, so the IAM's tests can use it too.
 */
import { SIGNED_HEADERS_V2, signRequestV2, type SignedHeaderValues } from './hmac'

export interface IamClientOptions {
  /** the IAM's base URL, e.g. http://127.0.0.1:3001 (a path prefix is kept and signed) */
  baseUrl: string
  hmac?: { clientId: string; sharedSecret: string }
  /** per request, covering connect + response body; default 10 s */
  timeoutMs?: number
  /** for tests; defaults to the global fetch */
  fetch?: typeof globalThis.fetch
  /** told of every finished call (the gateway's metrics): its status, or unavailable */
  observe?: (call: { method: string; path: string; outcome: number | 'unavailable'; seconds: number }) => void
}

export interface IamRequest {
  method: string
  /** starts with `/`; no query string (use `query`) */
  path: string
  query?: Record<string, string>
  /** sent as JSON when not undefined */
  body?: unknown
  cookies?: Record<string, string>
  headers?: Record<string, string>
  /** the end user's IP, forwarded as X-Forwarded-For */
  clientIp?: string
  userAgent?: string
}

export interface IamResponse<T> {
  status: number
  headers: Headers
  /** the parsed JSON body; null for an empty or non-JSON body */
  body: T | null
  /** the raw Set-Cookie headers, in order */
  setCookies: string[]
}

/** A request passed through as it came (the OpenID Provider's endpoints): raw body, chosen headers. */
export interface IamForward {
  method: string
  /** path + query exactly as the browser or client sent it */
  target: string
  /** the headers to pass on (the caller chooses which); cookie and authorization travel here */
  headers: Record<string, string>
  body?: Uint8Array
  /** the end user's IP, forwarded as X-Forwarded-For */
  clientIp?: string
}

export interface IamRawResponse {
  status: number
  headers: Headers
  body: Uint8Array
  setCookies: string[]
}

export interface IamClient {
  request<T = unknown>(req: IamRequest): Promise<IamResponse<T>>
  /** passes a request through unchanged apart from the signature; redirects are returned, never followed */
  forward(req: IamForward): Promise<IamRawResponse>
  /** true when GET /health answers 200; false for any other status or when the IAM is unreachable */
  health(): Promise<boolean>
}

/** The IAM could not be reached, or did not answer within the timeout. */
export class IamUnavailableError extends Error {
  override name = 'IamUnavailableError'
}

// RFC 6265 section 4.1.1: cookie names are tokens; values exclude CTLs, whitespace, `"`, `,`, `;` and `\`.
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/

function cookieHeader(cookies: Record<string, string>): string | undefined {
  const pairs = Object.entries(cookies).map(([name, value]) => {
    // A value carrying `;` would smuggle a second cookie to the IAM: this is a caller bug.
    if (!COOKIE_NAME.test(name) || !COOKIE_VALUE.test(value)) throw new TypeError(`invalid cookie ${JSON.stringify(name)}`)
    return `${name}=${value}`
  })
  return pairs.length ? pairs.join('; ') : undefined
}

function targetUrl(baseUrl: string, path: string, query: Record<string, string> | undefined): URL {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('?') || path.includes('#')) {
    throw new TypeError(`IAM request path must be an absolute path without query: ${path}`)
  }
  const base = new URL(baseUrl)
  const url = new URL(base.pathname.replace(/\/+$/, '') + path, base)
  for (const [key, value] of Object.entries(query ?? {})) url.searchParams.append(key, value)
  return url
}

async function readBody<T>(res: Response): Promise<T | null> {
  const text = await res.text()
  if (!text || !/^application\/(?:[\w.+-]+\+)?json\b/i.test(res.headers.get('content-type') ?? '')) return null
  try {
    return JSON.parse(text) as T
  } catch {
    return null
  }
}

/** Creates a client for one IAM deployment. */
export function createIamClient(options: IamClientOptions): IamClient {
  const doFetch = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 10_000
  // Validate once so a bad base URL is a start-up error, not a per-request one.
  new URL(options.baseUrl)

  async function request<T = unknown>(req: IamRequest): Promise<IamResponse<T>> {
    const method = req.method.toUpperCase()
    const url = targetUrl(options.baseUrl, req.path, req.query)
    const headers = new Headers(req.headers)
    headers.set('accept', 'application/json')
    const cookie = req.cookies ? cookieHeader(req.cookies) : undefined
    if (cookie) headers.set('cookie', cookie)
    if (req.clientIp) headers.set('x-forwarded-for', req.clientIp)
    // An empty browser User-Agent is forwarded as empty, not replaced by fetch's own ("node").
    if (req.userAgent !== undefined) headers.set('user-agent', req.userAgent)
    let body: string | undefined
    if (req.body !== undefined) {
      body = JSON.stringify(req.body)
      headers.set('content-type', 'application/json')
    }
    const res = await send(method, url, headers, body)
    const parsed = await readFully(method, url, () => readBody<T>(res.response))
    return { status: res.status, headers: res.headers, body: parsed, setCookies: res.headers.getSetCookie() }
  }

  /** Reads a response body; a connection lost or timed out meanwhile is the IAM being unavailable. */
  async function readFully<R>(method: string, url: URL, read: () => Promise<R>): Promise<R> {
    try {
      return await read()
    } catch (error) {
      if (error instanceof TypeError || (error instanceof DOMException && error.name === 'TimeoutError')) {
        throw new IamUnavailableError(`IAM unreachable: ${method} ${url.pathname} (${(error as Error).message})`, { cause: error })
      }
      throw error
    }
  }

  function sign(method: string, url: URL, headers: Headers, body: string | Uint8Array | undefined): void {
    if (!options.hmac) return
    // Version 2 always: the signature also covers the body and the credential headers, so signed
    // headers cannot be replayed with another body or session (iam/client/hmac.ts). Set last: the
    // signature headers (and the nonce as X-Request-ID) always win over caller headers.
    const covered: SignedHeaderValues = {}
    for (const name of SIGNED_HEADERS_V2) covered[name] = headers.get(name) ?? undefined
    const signed = signRequestV2({ ...options.hmac, method, url: url.pathname + url.search, body, headers: covered })
    for (const [name, value] of Object.entries(signed)) headers.set(name, value)
  }

  /** The fetch itself, signed, bounded in time, observed; the body left unread for the caller. */
  async function send(method: string, url: URL, headers: Headers, body: string | Uint8Array | undefined) {
    sign(method, url, headers, body)
    const signal = AbortSignal.timeout(timeoutMs)
    const started = performance.now()
    const observe = (outcome: number | 'unavailable') =>
      options.observe?.({ method, path: url.pathname, outcome, seconds: (performance.now() - started) / 1000 })
    try {
      const response = await doFetch(url, { method, headers, body: body as BodyInit | undefined, redirect: 'manual', signal })
      observe(response.status)
      return { status: response.status, headers: response.headers, response }
    } catch (error) {
      if (error instanceof TypeError || (error instanceof DOMException && error.name === 'TimeoutError')) {
        observe('unavailable')
        throw new IamUnavailableError(`IAM unreachable: ${method} ${url.pathname} (${(error as Error).message})`, { cause: error })
      }
      throw error
    }
  }

  async function forward(req: IamForward): Promise<IamRawResponse> {
    const method = req.method.toUpperCase()
    if (!req.target.startsWith('/') || req.target.startsWith('//') || req.target.includes('#')) throw new TypeError(`IAM forward target must be an absolute path: ${req.target}`)
    const base = new URL(options.baseUrl)
    const url = new URL(base.pathname.replace(/\/+$/, '') + req.target, base)
    const headers = new Headers(req.headers)
    if (req.clientIp) headers.set('x-forwarded-for', req.clientIp)
    const body = req.body && req.body.length > 0 ? req.body : undefined
    const res = await send(method, url, headers, body)
    const bytes = await readFully(method, url, async () => new Uint8Array(await res.response.arrayBuffer()))
    return { status: res.status, headers: res.headers, body: bytes, setCookies: res.headers.getSetCookie() }
  }

  return {
    request,
    forward,
    async health() {
      try {
        return (await request({ method: 'GET', path: '/health' })).status === 200
      } catch (error) {
        if (error instanceof IamUnavailableError) return false
        throw error
      }
    },
  }
}
