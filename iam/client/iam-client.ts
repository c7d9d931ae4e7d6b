/**
 * The IAM's own HTTP client: what the gateway uses for every call to the IAM.
 * Every request is HMAC-signed when `hmac` is given (version 3 of iam/client/hmac.ts, which names the request's purpose); the signed `url` is the path + query exactly as this
 * client sends it, so a proxy in between that forwards the request target unchanged keeps the
 * signature valid.
 *
 * undici's connection pool and node:crypto only: no h3 or Nuxt, so the IAM's tests can use it too.
 * The gateway makes an IAM call for nearly every request it answers, so the call's own cost counts:
 * undici's `dispatch` (its documented low-level API, on a `Pool` of kept-alive connections) costs
 * well under half of node:http's client CPU per call, and `fetch` (Request and Response objects)
 * several times it (docs/performance.md, "The gateway hop").
 */
import { errors as undiciErrors, Pool, type Dispatcher } from 'undici'
import { isCanonicalPath, splitTarget } from '../contract/request-path'
import { SIGNED_HEADERS_V2, signRequestV3, type GatewayPurpose, type SignedHeaderValues } from './hmac'

export interface IamClientOptions {
  /** the IAM's base URL, e.g. http://127.0.0.1:3001 (a path prefix is kept and signed) */
  baseUrl: string
  hmac?: { clientId: string; sharedSecret: string }
  /** per request, covering connect + response body; default 10 s */
  timeoutMs?: number
  /** told of every finished call (the gateway's metrics): its status, or unavailable */
  observe?: (call: { method: string; path: string; outcome: number | 'unavailable'; seconds: number }) => void
  /**
   * Called as each call leaves (the gateway's tracing, shared/tracing.ts): headers to send with it
   * (W3C `traceparent`, which no signature covers: iam/client/hmac.ts signs a fixed list of
   * headers) and what to call when it ends. Unset: nothing is added.
   */
  trace?: (method: string) => { headers: Record<string, string>; end(outcome: number | 'unavailable'): void }
}

export interface IamRequest {
  method: string
  /** starts with `/`; no query string (use `query`) */
  path: string
  query?: Record<string, string>
  /** sent as JSON when not undefined */
  body?: unknown
  /** sent as is with its Content-Type instead of a JSON body (an image upload, PUT /auth/picture) */
  raw?: { contentType: string; bytes: Uint8Array }
  cookies?: Record<string, string>
  headers?: Record<string, string>
  /** the end user's IP, forwarded as X-Forwarded-For */
  clientIp?: string
  userAgent?: string
  /** why it is sent (iam/client/hmac.ts); `bff` unless told: the OAuth callback's sign-in says `oauth-callback` */
  purpose?: GatewayPurpose
}

export interface IamResponse<T> {
  status: number
  headers: AnswerHeaders
  /** the parsed JSON body; null for an empty or non-JSON body */
  body: T | null
  /** the body's bytes as they came (an image, GET /auth/picture) */
  raw: Uint8Array
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
  /** `provider` unless told: what passes through unchanged is OpenID Provider traffic */
  purpose?: GatewayPurpose
}

export interface IamRawResponse {
  status: number
  headers: AnswerHeaders
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

/** A target this client will not sign: its path is not canonical, or URL parsing would change it. */
export class IamTargetError extends TypeError {
  override name = 'IamTargetError'
}

/**
 * The URL for `path` (+ a raw query) under the base URL's path. A signature proves only that this
 * client sent the request, so the path signed must be the path asked for: one that is not
 * canonical (iam/contract/request-path.ts), or that URL parsing would resolve elsewhere
 * (`/oidc/%2e%2e/x` is `/x` to WHATWG URL), is refused before anything is signed.
 */
function urlUnderBase(base: URL, path: string, rawQuery: string): URL {
  const expected = base.pathname.replace(/\/+$/, '') + path
  if (!isCanonicalPath(path)) throw new IamTargetError(`IAM request path is not canonical: ${JSON.stringify(path)}`)
  const url = new URL(expected + (rawQuery ? `?${rawQuery}` : ''), base)
  if (url.pathname !== expected || url.origin !== base.origin) throw new IamTargetError(`IAM request path changes under URL parsing: ${JSON.stringify(path)}`)
  return url
}

/** How many checked paths an IAM client keeps (createIamClient `checked`). */
const CHECKED_PATHS = 1000

function targetUrl(base: URL, path: string, query: Record<string, string> | undefined): URL {
  const url = urlUnderBase(base, path, '')
  for (const [key, value] of Object.entries(query ?? {})) url.searchParams.append(key, value)
  return url
}

/** What came back: read whole (a JSON answer, or a provider answer passed on). */
interface Answer {
  status: number
  headers: AnswerHeaders
  body: Buffer
}

/**
 * An answer's headers as they came, read as a WHATWG `Headers` is (`get` joins a repeated header
 * with `, `, `getSetCookie` keeps each line, `forEach` gives each Set-Cookie line apart), in the
 * order they arrived: what callers read of them, without building a `Headers` for every call.
 */
export class AnswerHeaders {
  readonly #values = new Map<string, string[]>()

  /** `raw`: names and values alternating, as undici gives them; latin1, as node:http reads them */
  constructor(raw?: readonly (Buffer | string)[]) {
    if (!raw) return
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = latin1(raw[i]!).toLowerCase()
      const value = latin1(raw[i + 1]!)
      const values = this.#values.get(name)
      if (values) values.push(value)
      else this.#values.set(name, [value])
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase())?.join(', ') ?? null
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase())
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])]
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, values] of this.#values) {
      if (name === 'set-cookie') for (const value of values) callback(value, name)
      else callback(values.join(', '), name)
    }
  }
}

const latin1 = (value: Buffer | string) => (typeof value === 'string' ? value : value.toString('latin1'))

/** A caller's headers with their names lower-cased, in a new object this call may add to. */
function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (headers) for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!
  return out
}

function parsedBody<T>(answer: Answer): T | null {
  if (answer.body.length === 0 || !/^application\/(?:[\w.+-]+\+)?json\b/i.test(answer.headers.get('content-type') ?? '')) return null
  try {
    return JSON.parse(answer.body.toString('utf8')) as T
  } catch {
    return null
  }
}

/**
 * Idle connections are closed before the IAM would close them: undici reads the server's
 * `Keep-Alive: timeout=` hint and keeps a connection that long less a margin, so a call never goes
 * out on a connection the IAM is closing. Without a hint, this. Requests take no timeout from
 * this: see `send`.
 */
const IDLE_CONNECTION_MS = 4_000

/** Creates a client for one IAM deployment. */
export function createIamClient(options: IamClientOptions): IamClient {
  const timeoutMs = options.timeoutMs ?? 10_000
  // Validate once so a bad base URL is a start-up error, not a per-request one.
  const base = new URL(options.baseUrl)
  // As many connections as calls in flight (node:http's agent did the same), each kept for the next call.
  const pool = new Pool(base.origin, { keepAliveTimeout: IDLE_CONNECTION_MS })

  // The checked URL of each path called without a query: the same few paths on every call, and
  // building and checking a URL at each was about a fifth of the gateway's CPU per session read
  // (docs/performance.md). Never mutated (send reads its pathname and search); emptied when it grows
  // past CHECKED_PATHS (paths with ids).
  const checked = new Map<string, URL>()
  const checkedTarget = (path: string): URL => {
    let url = checked.get(path)
    if (!url) {
      url = urlUnderBase(base, path, '')
      if (checked.size >= CHECKED_PATHS) checked.clear()
      checked.set(path, url)
    }
    return url
  }

  async function request<T = unknown>(req: IamRequest): Promise<IamResponse<T>> {
    const method = req.method.toUpperCase()
    const url = req.query && Object.keys(req.query).length > 0 ? targetUrl(base, req.path, req.query) : checkedTarget(req.path)
    const headers = lowerCased(req.headers)
    headers.accept = 'application/json'
    const cookie = req.cookies ? cookieHeader(req.cookies) : undefined
    if (cookie) headers.cookie = cookie
    if (req.clientIp) headers['x-forwarded-for'] = req.clientIp
    // An empty browser User-Agent is forwarded as empty, as the browser sent it.
    if (req.userAgent !== undefined) headers['user-agent'] = req.userAgent
    let body: string | Uint8Array | undefined
    if (req.raw !== undefined) {
      body = req.raw.bytes
      headers['content-type'] = req.raw.contentType
    } else if (req.body !== undefined) {
      body = JSON.stringify(req.body)
      headers['content-type'] = 'application/json'
    }
    const answer = await send(method, url, headers, body, req.purpose ?? 'bff')
    return { status: answer.status, headers: answer.headers, body: parsedBody<T>(answer), raw: answer.body, setCookies: answer.headers.getSetCookie() }
  }

  function sign(method: string, url: URL, headers: Record<string, string>, body: string | Uint8Array | undefined, purpose: GatewayPurpose): void {
    if (!options.hmac) return
    // Version 3 always: the signature also covers the body, the credential headers and the purpose,
    // so signed headers cannot be replayed with another body or session, nor reach a route that
    // does not accept what they were signed for (iam/client/hmac.ts). Set last: the signature
    // headers (and the nonce as X-Request-ID) always win over caller headers.
    const covered: SignedHeaderValues = {}
    for (const name of SIGNED_HEADERS_V2) covered[name] = headers[name]
    const signed = signRequestV3({ ...options.hmac, method, url: url.pathname + url.search, body, headers: covered, purpose })
    for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value
  }

  /**
   * The exchange itself, signed, bounded in time (connect to the last byte of the answer),
   * observed, the answer read whole. Redirects are returned, never followed. A refused or lost
   * connection, or no whole answer within timeoutMs, is IamUnavailableError.
   */
  function send(method: string, url: URL, outgoing: Record<string, string>, body: string | Uint8Array | undefined, purpose: GatewayPurpose): Promise<Answer> {
    sign(method, url, outgoing, body, purpose)
    if (body !== undefined) outgoing['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
    // after the caller's headers: a forwarded request's own traceparent never outranks this call's
    const traced = options.trace?.(method)
    if (traced) Object.assign(outgoing, traced.headers)
    const started = performance.now()
    const observe = (outcome: number | 'unavailable') => {
      traced?.end(outcome)
      options.observe?.({ method, path: url.pathname, outcome, seconds: (performance.now() - started) / 1000 })
    }
    return new Promise<Answer>((resolve, reject) => {
      let done = false
      let exchange: Dispatcher.DispatchController | undefined
      // true the first time only: an answer, an error and the timer may each try to end the call
      const finish = () => {
        if (done) return false
        done = true
        clearTimeout(timer)
        return true
      }
      const fail = (reason: string, cause?: unknown) => {
        if (!finish()) return
        exchange?.abort(new Error(reason))
        observe('unavailable')
        reject(new IamUnavailableError(`IAM unreachable: ${method} ${url.pathname} (${reason})`, { cause }))
      }
      const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs)
      let status = 0
      let rawHeaders: Dispatcher.DispatchController['rawHeaders']
      const chunks: Buffer[] = []
      pool.dispatch(
        { path: url.pathname + url.search, method, headers: outgoing, body: body ?? null },
        {
          onRequestStart(controller) {
            // a call still queued when its time ran out never leaves
            if (done) controller.abort(new Error('abandoned'))
            else exchange = controller
          },
          onResponseStart(controller, statusCode) {
            status = statusCode
            rawHeaders = controller.rawHeaders
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk)
          },
          onResponseEnd() {
            if (!finish()) return
            observe(status)
            resolve({ status, headers: new AnswerHeaders(Array.isArray(rawHeaders) ? rawHeaders : undefined), body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) })
          },
          onResponseError(_controller, error) {
            // a header value no request may carry is a caller's bug, refused before anything is sent
            if (error instanceof undiciErrors.InvalidArgumentError && exchange === undefined) {
              if (finish()) reject(new TypeError(error.message, { cause: error }))
              return
            }
            // refused, reset, or lost in the middle of the answer
            fail(error.message, error)
          },
        },
      )
    })
  }

  async function forward(req: IamForward): Promise<IamRawResponse> {
    const method = req.method.toUpperCase()
    const { path, query } = splitTarget(req.target)
    if (query.includes('#')) throw new IamTargetError(`IAM forward target carries a fragment: ${JSON.stringify(req.target)}`)
    const url = urlUnderBase(base, path, query)
    const headers = lowerCased(req.headers)
    if (req.clientIp) headers['x-forwarded-for'] = req.clientIp
    const body = req.body && req.body.length > 0 ? req.body : undefined
    const answer = await send(method, url, headers, body, req.purpose ?? 'provider')
    return { status: answer.status, headers: answer.headers, body: answer.body, setCookies: answer.headers.getSetCookie() }
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
