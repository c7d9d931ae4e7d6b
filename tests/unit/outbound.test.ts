/**
 * shared/outbound.ts against real servers on loopback: the addresses, spellings and answers an
 * outbound call must refuse. Loopback is refused by default, so the servers here are reached only
 * where a test opens 127.0.0.0/8 on purpose; every refusal test also checks the server saw nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LookupAddress } from 'node:dns'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { addressAllowed, CONCURRENT_LOOKUPS, guardedFetch, guardedFetchApi, limitConcurrency, OutboundRefused, type OutboundPolicy } from '../../shared/outbound'
import { checkEndpointUrl } from '../../iam/features/webhooks/url-check'

type Handler = (req: IncomingMessage, res: ServerResponse) => void
const seen: Array<{ path: string; host: string; body: string }> = []
/** the client port of each request's connection: equal ports, one connection */
const connectionOf: number[] = []
let handler: Handler = (_req, res) => res.end('ok')
let server: Server
let port: number

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      seen.push({ path: req.url ?? '', host: req.headers.host ?? '', body: Buffer.concat(chunks).toString() })
      connectionOf.push(req.socket.remotePort ?? 0)
      handler(req, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
beforeEach(() => {
  seen.length = 0
  connectionOf.length = 0
  handler = (_req, res) => res.end('ok')
})

const STRICT: OutboundPolicy = { allowHttp: true, timeoutMs: 2000, maxBytes: 1024 }
const LOCAL: OutboundPolicy = { ...STRICT, allowAddresses: ['127.0.0.0/8'] }

/** A resolver with fixed answers, standing in for DNS records this machine cannot publish. */
function answers(table: Record<string, string[]>, calls: string[] = []): OutboundPolicy['resolve'] {
  return async (hostname) => {
    calls.push(hostname)
    const list = table[hostname]
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return list.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(OutboundRefused)
  return (error as OutboundRefused).reason
}

describe('which addresses an outbound call may reach', () => {
  const REFUSED = [
    '127.0.0.1', '127.255.255.254', '0.0.0.0', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '100.64.0.1', '192.0.2.10', '198.18.0.1', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fd00::1', 'fc00::5', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
    '::ffff:169.254.169.254', '64:ff9b::7f00:1', '2002:7f00:1::1', '2001:0:4136:e378::1', '2001:db8::1',
  ]
  const ALLOWED = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']

  it.each(REFUSED)('refuses %s by default', (address) => {
    expect(addressAllowed(address, {})).toBe(false)
  })
  it.each(ALLOWED)('allows the public address %s', (address) => {
    expect(addressAllowed(address, {})).toBe(true)
  })
  it('opens only the ranges the policy names, IPv4-mapped spellings included', () => {
    expect(addressAllowed('127.0.0.1', LOCAL)).toBe(true)
    expect(addressAllowed('::ffff:127.0.0.1', LOCAL)).toBe(true)
    expect(addressAllowed('10.0.0.1', LOCAL)).toBe(false)
    expect(addressAllowed('::1', LOCAL)).toBe(false)
  })
  it('refuses what is not an address', () => {
    expect(addressAllowed('localhost', {})).toBe(false)
  })
})

describe('guardedFetch refuses before connecting', () => {
  it.each([
    ['a dotted loopback address', () => `http://127.0.0.1:${port}/x`],
    ['a loopback address written as one number', () => `http://2130706433:${port}/x`],
    ['a loopback address in hex parts', () => `http://0x7f.1:${port}/x`],
    ['an IPv4-mapped IPv6 loopback address', () => `http://[::ffff:127.0.0.1]:${port}/x`],
    ['the IPv6 loopback address', () => `http://[::1]:${port}/x`],
    ['the unspecified address', () => `http://0.0.0.0:${port}/x`],
    ['a name that resolves to loopback', () => `http://localhost:${port}/x`],
  ])('%s', async (_label, url) => {
    expect(await refusal(guardedFetch(url(), {}, STRICT))).toBe('address_refused')
    expect(seen).toEqual([])
  })

  it('refuses http unless the policy allows it, and other schemes always', async () => {
    expect(await refusal(guardedFetch(`http://93.184.216.34/`, {}, { ...STRICT, allowHttp: false }))).toBe('scheme_refused')
    expect(await refusal(guardedFetch('file:///etc/passwd', {}, STRICT))).toBe('scheme_refused')
    expect(await refusal(guardedFetch('ftp://93.184.216.34/', {}, STRICT))).toBe('scheme_refused')
    expect(await refusal(guardedFetch('/relative', {}, STRICT))).toBe('invalid_url')
  })

  it('refuses a URL with credentials', async () => {
    expect(await refusal(guardedFetch(`http://user:pass@127.0.0.1:${port}/`, {}, LOCAL))).toBe('credentials_in_url')
    expect(seen).toEqual([])
  })

  it('refuses a name that resolves to a private address, and a name with one refused address among allowed ones', async () => {
    const resolve = answers({ 'inside.example': ['10.0.0.5'], 'mixed.example': ['127.0.0.1', '10.0.0.5'] })
    expect(await refusal(guardedFetch(`http://inside.example:${port}/`, {}, { ...STRICT, resolve }))).toBe('address_refused')
    expect(await refusal(guardedFetch(`http://mixed.example:${port}/`, {}, { ...LOCAL, resolve }))).toBe('address_refused')
    expect(seen).toEqual([])
  })

  it('refuses a name that does not resolve', async () => {
    expect(await refusal(guardedFetch(`https://nowhere.example/`, {}, { ...STRICT, resolve: answers({}) }))).toBe('unresolvable')
  })
})

describe('guardedFetch where the address is allowed', () => {
  it('connects to the address it checked, resolving the name once', async () => {
    const calls: string[] = []
    const res = await guardedFetch(`http://receiver.example:${port}/hook`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }, {
      ...LOCAL,
      resolve: answers({ 'receiver.example': ['127.0.0.1'] }, calls),
    })
    expect(res.status).toBe(200)
    expect(res.body.toString()).toBe('ok')
    expect(res.address).toBe('127.0.0.1')
    expect(calls).toEqual(['receiver.example'])
    expect(seen).toEqual([{ path: '/hook', host: `receiver.example:${port}`, body: '{"a":1}' }])
  })

  it('answers a redirect as it came and does not follow it', async () => {
    handler = (req, res) => {
      if (req.url === '/from') res.writeHead(302, { location: `http://127.0.0.1:${port}/to` }).end()
      else res.end('followed')
    }
    const res = await guardedFetch(`http://127.0.0.1:${port}/from`, {}, LOCAL)
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe(`http://127.0.0.1:${port}/to`)
    expect(seen.map((s) => s.path)).toEqual(['/from'])
  })

  it('refuses an answer that declares more bytes than allowed', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-length': '2048' }).end('x'.repeat(2048))
    expect(await refusal(guardedFetch(`http://127.0.0.1:${port}/`, {}, LOCAL))).toBe('too_large')
  })

  it('stops reading a chunked answer once it passes the limit', async () => {
    handler = (_req, res) => {
      res.writeHead(200)
      res.write('x'.repeat(800))
      res.write('x'.repeat(800))
      // never ended: the limit, not the end, must stop the read
    }
    expect(await refusal(guardedFetch(`http://127.0.0.1:${port}/`, {}, LOCAL))).toBe('too_large')
  })

  it('gives up on an answer that does not finish within the deadline', async () => {
    handler = (_req, res) => {
      res.writeHead(200)
      res.write('partial')
    }
    expect(await refusal(guardedFetch(`http://127.0.0.1:${port}/`, {}, { ...LOCAL, timeoutMs: 100 }))).toBe('timeout')
    handler = () => {}
    expect(await refusal(guardedFetch(`http://127.0.0.1:${port}/`, {}, { ...LOCAL, timeoutMs: 100 }))).toBe('timeout')
  })

  it('reports a refused connection as a network failure', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const gone = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect(await refusal(guardedFetch(`http://127.0.0.1:${gone}/`, {}, LOCAL))).toBe('network')
  })
})

describe('guardedFetch under a policy that keeps connections', () => {
  const keeping = (resolve?: OutboundPolicy['resolve']): OutboundPolicy => ({ ...LOCAL, reuseConnections: true, resolve })

  it('sends the calls of one policy over one kept connection, resolving the name only for the connection it opens', async () => {
    const calls: string[] = []
    const policy = keeping(answers({ 'receiver.example': ['127.0.0.1'] }, calls))
    for (const path of ['/1', '/2', '/3']) {
      const res = await guardedFetch(`http://receiver.example:${port}${path}`, { method: 'POST', body: path }, policy)
      expect(res.status).toBe(200)
      expect(res.address).toBe('127.0.0.1')
    }
    expect(seen.map((s) => s.body)).toEqual(['/1', '/2', '/3'])
    expect(new Set(connectionOf).size).toBe(1)
    expect(calls).toEqual(['receiver.example'])
  })

  it('never lends a connection to another policy, nor to a call without one', async () => {
    const first = keeping()
    await guardedFetch(`http://127.0.0.1:${port}/a`, {}, first)
    await guardedFetch(`http://127.0.0.1:${port}/b`, {}, keeping())
    await guardedFetch(`http://127.0.0.1:${port}/c`, {}, LOCAL)
    await guardedFetch(`http://127.0.0.1:${port}/d`, {}, first)
    expect(connectionOf).toHaveLength(4)
    expect(new Set(connectionOf).size).toBe(3)
    expect(connectionOf[3]).toBe(connectionOf[0])
  })

  it('checks a second name on its own although a connection to the first is kept on the same port', async () => {
    const policy = keeping(answers({ 'good.example': ['127.0.0.1'], 'bad.example': ['10.0.0.1'] }))
    expect((await guardedFetch(`http://good.example:${port}/`, {}, policy)).status).toBe(200)
    expect(await refusal(guardedFetch(`http://bad.example:${port}/`, {}, policy))).toBe('address_refused')
    expect(seen.map((s) => s.host)).toEqual([`good.example:${port}`])
  })

  it('sends a call once more on a new connection when the kept one is dropped before any answer', async () => {
    const policy = keeping()
    await guardedFetch(`http://127.0.0.1:${port}/first`, {}, policy)
    // the receiver drops the kept connection as the next call arrives on it (its idle timeout ran out)
    const dropped = new Set<number>()
    handler = (req, res) => {
      const from = req.socket.remotePort ?? 0
      if (from === connectionOf[0] && !dropped.has(from)) {
        dropped.add(from)
        req.socket.destroy()
      } else res.end('ok')
    }
    const res = await guardedFetch(`http://127.0.0.1:${port}/second`, { method: 'POST', body: 'again' }, policy)
    expect(res.status).toBe(200)
    expect(seen.map((s) => s.path)).toEqual(['/first', '/second', '/second'])
    expect(connectionOf[2]).not.toBe(connectionOf[0])
  })

  it('does not send a call again when a new connection is dropped: the failure is the answer', async () => {
    handler = (req) => req.socket.destroy()
    expect(await refusal(guardedFetch(`http://127.0.0.1:${port}/once`, {}, keeping()))).toBe('network')
    expect(seen.map((s) => s.path)).toEqual(['/once'])
  })
})

describe('guardedFetchApi, the guard in the shape of fetch for libraries', () => {
  it('answers a Response with the status, headers and body the server sent, and sends the method, headers and body', async () => {
    handler = (_req, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2'])
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}')
    }
    const res = await guardedFetchApi(LOCAL)(`http://127.0.0.1:${port}/in`, { method: 'POST', headers: { 'x-test': 'yes' }, body: new URLSearchParams({ a: 'b' }) })
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(await res.json()).toEqual({ ok: true })
    expect(seen).toEqual([{ path: '/in', host: `127.0.0.1:${port}`, body: 'a=b' }])
  })

  it('takes a Request as fetch does', async () => {
    const res = await guardedFetchApi(LOCAL)(new Request(`http://127.0.0.1:${port}/req`, { method: 'PUT', body: 'payload' }))
    expect(res.status).toBe(200)
    expect(seen).toEqual([{ path: '/req', host: `127.0.0.1:${port}`, body: 'payload' }])
  })

  it('rejects a refused call as fetch rejects a network error, with the refusal as its cause', async () => {
    const error = await guardedFetchApi(STRICT)(`http://127.0.0.1:${port}/`).then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).cause).toBeInstanceOf(OutboundRefused)
    expect(((error as TypeError).cause as OutboundRefused).reason).toBe('address_refused')
    expect(seen).toEqual([])
  })

  it('stops when the caller aborts', async () => {
    handler = () => {}
    const error = await guardedFetchApi(LOCAL)(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(50) }).then(() => null, (e: unknown) => e)
    expect(((error as TypeError).cause as OutboundRefused).reason).toBe('timeout')
  })
})

describe('host names resolved a few at a time', () => {
  it('limitConcurrency runs at most `max` calls at once, starts the next in order as one settles, a failure included', async () => {
    const started: number[] = []
    const finish = new Map<number, { ok: () => void; fail: () => void }>()
    const run = limitConcurrency(
      (n: number) =>
        new Promise<number>((resolve, reject) => {
          started.push(n)
          finish.set(n, { ok: () => resolve(n), fail: () => reject(new Error(`call ${n} failed`)) })
        }),
      2,
    )
    const calls = [1, 2, 3, 4].map((n) => run(n))
    await Promise.resolve()
    expect(started).toEqual([1, 2])
    finish.get(2)!.fail()
    await expect(calls[1]).rejects.toThrow('call 2 failed')
    await vi.waitFor(() => expect(started).toEqual([1, 2, 3]))
    finish.get(1)!.ok()
    expect(await calls[0]).toBe(1)
    await vi.waitFor(() => expect(started).toEqual([1, 2, 3, 4]))
    finish.get(3)!.ok()
    finish.get(4)!.ok()
    expect(await Promise.all([calls[2], calls[3]])).toEqual([3, 4])
  })

  it('the guard resolves at most CONCURRENT_LOOKUPS names at once, fewer than the four threads of the pool the crypto jobs share', () => {
    expect(CONCURRENT_LOOKUPS).toBeGreaterThanOrEqual(1)
    expect(CONCURRENT_LOOKUPS).toBeLessThan(4)
  })

  it("a webhook endpoint's name that never resolves is refused within the policy's deadline", async () => {
    const never = () => new Promise<string[]>(() => {})
    const checked = await checkEndpointUrl('https://hangs.example.com/in', { allowHttp: false, allowAddresses: [], timeoutMs: 50 }, never)
    expect(checked).toEqual({ ok: false, message: 'url: hangs.example.com did not resolve within 50 ms' })
  })
})
