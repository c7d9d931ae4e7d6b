/**
 * The one way out to a URL someone configured or sent (a webhook endpoint, a client's metadata
 * document, a provider's endpoint): a request that cannot be turned against the machine it runs on
 * or the network behind it (server-side request forgery).
 *
 * - https only (http where the policy allows it, for loopback receivers in development and tests);
 *   no user name or password in the URL.
 * - Every address the host name resolves to is checked, and the connection goes to a checked
 *   address: the check and the connection use the same lookup, so a name that resolves to a public
 *   address for the check and to 127.0.0.1 for the connection (DNS rebinding) cannot slip through.
 *   A name with any refused address is refused as a whole. IP literals in any spelling
 *   (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) are checked after the URL parser normalised them.
 * - Refused: loopback, private (RFC 1918, unique-local fc00::/7), link-local (cloud metadata at
 *   169.254.169.254), carrier-grade NAT, "this network", multicast, reserved, documentation and
 *   benchmarking ranges; IPv4-mapped IPv6 addresses as the IPv4 address they carry, and the
 *   translation prefixes (NAT64, 6to4, Teredo) whole. `allowAddresses` opens a range on purpose.
 * - Redirects are never followed: the 3xx is the answer, and the caller decides (a redirect to
 *   an internal address is the classic way round a check made on the first URL only).
 * - A policy may keep connections for its own later calls (`reuseConnections`, the webhook worker's):
 *   a kept connection was opened through the checked lookup, so it reaches a checked address; it is
 *   kept per host name and port, so another name is checked on its own even on the same address.
 * - One deadline covers lookup, connect, headers and body; the body is read up to `maxBytes`, and a
 *   larger one is refused as soon as it is known (Content-Length) or read.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/** The loopback ranges, for a policy that opens them on purpose (development and tests) */
export const LOOPBACK_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128']

export interface OutboundPolicy {
  /** plain http too (development and tests; never for a URL sent by a stranger in production) */
  allowHttp?: boolean
  /** CIDR ranges reachable although refused by default, e.g. `127.0.0.0/8` for a local receiver */
  allowAddresses?: readonly string[]
  /** one deadline for the whole exchange */
  timeoutMs: number
  /** the largest response body read */
  maxBytes: number
  /** how host names resolve: node's resolver; tests give names their answers */
  resolve?: (hostname: string) => Promise<readonly LookupAddress[]>
  /**
   * Keep connections open between calls made under this same policy object (a worker that calls
   * the same receivers again and again). Only a connection this guard opened, to an address it
   * checked, is ever reused: the pool belongs to the policy, so a connection is never shared with
   * calls under other rules. Off by default: each call then opens a connection of its own.
   */
  reuseConnections?: boolean
}

export type OutboundRefusal =
  | 'invalid_url'
  | 'scheme_refused'
  | 'credentials_in_url'
  | 'address_refused'
  | 'unresolvable'
  | 'timeout'
  | 'too_large'
  | 'network'

/** The request was not made, or its answer not read: `reason` says which rule. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused'
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(message)
  }
}

export interface OutboundResponse {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  /** the address connected to */
  address: string
}

export interface OutboundRequest {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** the caller's own abort (a library's timeout), besides the policy's deadline */
  signal?: AbortSignal
}

// IANA special-purpose registries (RFC 6890 and its updates): ranges no outbound call reaches.
const REFUSED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network" (0.0.0.0 reaches the local host)
  ['10.0.0.0', 8], // private, RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT, RFC 6598
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12], // private, RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private, RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
]
const REFUSED_V6: Array<[string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (RFC 6052)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
]

const REFUSED = new BlockList()
for (const [net, prefix] of REFUSED_V4) REFUSED.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of REFUSED_V6) REFUSED.addSubnet(net, prefix, 'ipv6')

const allowLists = new WeakMap<readonly string[], BlockList>()

/** The policy's allowed ranges as a BlockList (built once per list). */
function allowed(ranges: readonly string[] | undefined): BlockList | null {
  if (!ranges?.length) return null
  let list = allowLists.get(ranges)
  if (!list) {
    list = new BlockList()
    for (const range of ranges) {
      const [net = '', bits] = range.split('/')
      const family = isIP(net)
      if (!family) throw new TypeError(`not a CIDR range: ${range}`)
      const type = family === 4 ? 'ipv4' : 'ipv6'
      list.addSubnet(net, bits === undefined ? (family === 4 ? 32 : 128) : Number(bits), type)
    }
    allowLists.set(ranges, list)
  }
  return list
}

/** Whether an outbound call may connect to `address` under `policy` (exported for the tests' table). */
export function addressAllowed(address: string, policy: Pick<OutboundPolicy, 'allowAddresses'>): boolean {
  const family = isIP(address)
  if (!family) return false
  const type = family === 4 ? 'ipv4' : 'ipv6'
  // BlockList checks an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges too
  if (allowed(policy.allowAddresses)?.check(address, type)) return true
  return !REFUSED.check(address, type)
}

/**
 * At most `max` calls of `run` at once; the others wait in order for one to end. A call's slot is
 * held until its promise settles, however long that takes.
 */
export function limitConcurrency<A extends unknown[], R>(run: (...args: A) => Promise<R>, max: number): (...args: A) => Promise<R> {
  let running = 0
  const waiting: Array<() => void> = []
  const next = () => {
    running -= 1
    waiting.shift()?.()
  }
  return async (...args) => {
    if (running >= max) await new Promise<void>((resume) => waiting.push(resume))
    running += 1
    return run(...args).finally(next)
  }
}

/**
 * How many host names the guard resolves at once. node's resolver (getaddrinfo) holds a thread of
 * libuv's pool of four until the name server answers or the system resolver gives up, tens of
 * seconds for a name server that never answers; the pool also runs the crypto jobs that sign every
 * sign-in's tokens. A host name anyone can choose (an organization's webhook endpoint, a client's
 * metadata document) must not be able to take the whole pool: lookups past these wait for a
 * thread, within their caller's deadline.
 */
export const CONCURRENT_LOOKUPS = 2

/** node's resolver, at most CONCURRENT_LOOKUPS at once: every address of `hostname`, as the system orders them. */
export const resolveHost = limitConcurrency(
  (hostname: string) =>
    new Promise<readonly LookupAddress[]>((resolve, reject) => {
      dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
    }),
  CONCURRENT_LOOKUPS,
)

const defaultResolve = resolveHost

/**
 * The lookup the socket uses: resolves, refuses the whole name if any address is refused, and
 * hands node the checked addresses (all of them when it asks for all, for happy eyeballs).
 */
function checkedLookup(policy: OutboundPolicy, connected: { address: string }): LookupFunction {
  const resolve = policy.resolve ?? defaultResolve
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (!addresses.length) return callback(new OutboundRefused('unresolvable', `${hostname} has no address`), '', 0)
        const refused = addresses.find((a) => !addressAllowed(a.address, policy))
        if (refused) {
          return callback(new OutboundRefused('address_refused', `${hostname} resolves to ${refused.address}, which outbound calls may not reach`), '', 0)
        }
        const family = typeof options === 'object' ? options.family : options
        const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses
        if (!usable.length) return callback(new OutboundRefused('unresolvable', `${hostname} has no IPv${String(family)} address`), '', 0)
        connected.address = usable[0]!.address
        if (typeof options === 'object' && options.all) return (callback as unknown as (e: null, a: readonly LookupAddress[]) => void)(null, usable)
        callback(null, usable[0]!.address, usable[0]!.family)
      },
      () => callback(new OutboundRefused('unresolvable', `${hostname} could not be resolved`), '', 0),
    )
  }
}

const pools = new WeakMap<OutboundPolicy, { http: HttpAgent; https: HttpsAgent }>()

/**
 * The kept connections of a policy that reuses them. An idle connection is closed after 4 s, before
 * the 5 s a node server keeps one (`server.keepAliveTimeout`'s default), or a second before the
 * receiver's announced `Keep-Alive: timeout` when that is shorter (node's agent reads it);
 * `maxFreeSockets` bounds what waits.
 */
function poolOf(policy: OutboundPolicy): { http: HttpAgent; https: HttpsAgent } {
  let pool = pools.get(policy)
  if (!pool) {
    const options = { keepAlive: true, timeout: 4000, maxFreeSockets: 64, scheduling: 'lifo' as const }
    pool = { http: new HttpAgent(options), https: new HttpsAgent(options) }
    pools.set(policy, pool)
  }
  return pool
}

/** Makes one request under `policy`; throws OutboundRefused for every rule it breaks. */
export function guardedFetch(target: string | URL, init: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return Promise.reject(new OutboundRefused('invalid_url', 'not an absolute URL'))
  }
  const secure = url.protocol === 'https:'
  if (!secure && !(url.protocol === 'http:' && policy.allowHttp)) {
    return Promise.reject(new OutboundRefused('scheme_refused', `${url.protocol} URLs are refused: https only`))
  }
  if (url.username || url.password) return Promise.reject(new OutboundRefused('credentials_in_url', 'a URL with a user name or password is refused'))
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const connected = { address: host }
  // node connects to an IP literal without calling lookup: checked here
  if (isIP(host) && !addressAllowed(host, policy)) {
    return Promise.reject(new OutboundRefused('address_refused', `${host} may not be reached by outbound calls`))
  }

  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.from(init.body)
    const headers: Record<string, string> = { ...init.headers }
    if (body) headers['content-length'] = String(body.length)
    const send = secure ? httpsRequest : httpRequest
    const pool = policy.reuseConnections ? poolOf(policy) : null
    const { signal } = init
    let req: ClientRequest
    let answered = false
    let settled = false
    const finish = () => {
      settled = true
      clearTimeout(deadline)
      signal?.removeEventListener('abort', aborted)
    }
    const fail = (error: unknown) => {
      if (settled) return
      finish()
      req.destroy()
      reject(error instanceof OutboundRefused ? error : new OutboundRefused('network', error instanceof Error ? error.message : String(error)))
    }
    const deadline = setTimeout(() => fail(new OutboundRefused('timeout', `no full answer within ${policy.timeoutMs} ms`)), policy.timeoutMs)
    const aborted = () => fail(new OutboundRefused('timeout', 'the caller stopped waiting'))
    const exchange = (retry: boolean) => {
      req = send(url, {
        method: init.method ?? 'GET',
        headers,
        // without a pool, a fresh connection each time; a pooled connection was opened through the
        // checked lookup below when it was new, so reusing it reaches an address already checked
        agent: pool ? (secure ? pool.https : pool.http) : false,
        lookup: checkedLookup(policy, connected),
      })
      req.on('error', (error: NodeJS.ErrnoException) => {
        // a kept connection the other side closed just as it was taken (its idle timeout): the
        // request never reached it, and is sent once more on another connection (node's own advice
        // for `request.reusedSocket`); a receiver that did see it recognises the repeat by its id
        if (retry && !answered && req.reusedSocket && error.code === 'ECONNRESET' && !settled) return exchange(false)
        fail(error)
      })
      req.on('response', (res) => {
        answered = true
        const address = res.socket?.remoteAddress ?? connected.address
        const declared = Number(res.headers['content-length'])
        if (Number.isFinite(declared) && declared > policy.maxBytes) {
          return fail(new OutboundRefused('too_large', `the answer declares ${declared} bytes, more than ${policy.maxBytes}`))
        }
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > policy.maxBytes) return fail(new OutboundRefused('too_large', `the answer is larger than ${policy.maxBytes} bytes`))
          chunks.push(chunk)
        })
        res.on('error', fail)
        res.on('end', () => {
          if (settled) return
          finish()
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), address })
        })
      })
      req.end(body)
    }
    exchange(pool !== null)
    if (signal?.aborted) aborted()
    else signal?.addEventListener('abort', aborted, { once: true })
  })
}

/** RequestInit, with the byte arrays of any backing buffer libraries send as bodies */
export type GuardedFetchInit = Omit<RequestInit, 'body'> & { body?: BodyInit | Uint8Array | null }

// statuses whose Response may carry no body (Fetch standard, "null body status")
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/**
 * guardedFetch in the shape of `fetch`, for libraries that take a fetch function (oidc-provider's
 * `fetch` option, oauth4webapi's customFetch): the policy applies to every call they make. A
 * refusal rejects as fetch does for a network error (a TypeError), with the refusal as its cause.
 */
export function guardedFetchApi(policy: OutboundPolicy): (input: string | URL | Request, init?: GuardedFetchInit) => Promise<Response> {
  return async (input, init = {}) => {
    const request = input instanceof Request ? input : null
    const url = request ? request.url : (input as string | URL)
    const headers: Record<string, string> = {}
    new Headers(init.headers ?? request?.headers).forEach((value, name) => {
      headers[name] = value
    })
    const raw = init.body ?? (request?.body ? await request.arrayBuffer() : undefined)
    const body = raw === undefined || raw === null ? undefined : Buffer.from(await new Response(raw as BodyInit).arrayBuffer())
    let answer: OutboundResponse
    try {
      answer = await guardedFetch(url, { method: init.method ?? request?.method ?? 'GET', headers, body, signal: init.signal ?? request?.signal ?? undefined }, policy)
    } catch (error) {
      throw new TypeError(`fetch refused: ${(error as Error).message}`, { cause: error })
    }
    const responseHeaders = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one)
    }
    return new Response(NULL_BODY.has(answer.status) ? null : new Uint8Array(answer.body), { status: answer.status, headers: responseHeaders })
  }
}
