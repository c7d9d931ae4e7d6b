/**
 * The read-ahead of iam/features/oidc/request-memo.ts is scoped by oidc-provider's public
 * `Provider.ctx`: the Koa context of the request being served, from its start to its answer, and
 * undefined outside one. Run against the real library, with overlapping requests: each adapter
 * read finds its own request's context, before and after a wait, and what one request read ahead
 * is never taken by another.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { readAhead, readAheadContextFrom, takeReadAhead } from '../../iam/features/oidc/request-memo'

const gates = new Map<string, () => void>()
const seen: Array<{ client: string; at: 'start' | 'after-wait'; path: string | undefined; readBack?: unknown }> = []
let url = ''
let close: () => Promise<void>

/**
 * The provider reads its clients through the adapter inside its request, as it reads our tables
 * (iam/features/oidc/adapter.ts): each lookup records the context it finds and reads ahead its own
 * client id, and a client id starting with `wait-` holds its request until the test opens that
 * gate, then takes what it read ahead. No client exists.
 */
class RecordingAdapter {
  constructor(private readonly model: string) {}
  async find(id: string) {
    if (this.model !== 'Client') return undefined
    seen.push({ client: id, at: 'start', path: Provider.ctx?.path })
    readAhead('client', id)
    if (id.startsWith('wait-')) {
      await new Promise<void>((resolve) => gates.set(id, resolve))
      const taken = takeReadAhead<string>('client')
      seen.push({ client: id, at: 'after-wait', path: Provider.ctx?.path, readBack: taken.found ? taken.value : 'nothing' })
    }
    return undefined
  }
  async upsert() {}
  async findByUid() { return undefined }
  async findByUserCode() { return undefined }
  async consume() {}
  async destroy() {}
  async revokeByGrantId() {}
}

beforeAll(async () => {
  readAheadContextFrom(() => Provider.ctx)
  const provider = new Provider('http://127.0.0.1/', { adapter: RecordingAdapter, features: { clientCredentials: { enabled: true } } })
  const handle = provider.callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void>
  const server = createServer((req, res) => void handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  close = () => new Promise((resolve) => server.close(() => resolve()))
})
afterAll(async () => {
  readAheadContextFrom(() => undefined)
  await close()
})

const tokenRequest = (client: string) =>
  fetch(`${url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client, client_secret: 'secret' }),
  })

const untilGate = async (name: string) => {
  while (!gates.has(name)) await new Promise((resolve) => setTimeout(resolve, 5))
}

it('a provider request finds its own context; outside one there is none and nothing is read ahead', async () => {
  const res = await tokenRequest('plain')
  expect(res.status).toBe(401) // no such client: the lookup ran, in the request's context
  expect(seen.at(-1)).toEqual({ client: 'plain', at: 'start', path: '/token' })
  expect(Provider.ctx).toBeUndefined()
  readAhead('client', 'outside')
  expect(takeReadAhead('client')).toEqual({ found: false })
})

it('overlapping requests each keep their own context and read-ahead throughout', async () => {
  const first = tokenRequest('wait-first')
  await untilGate('wait-first')
  const second = tokenRequest('plain-second')
  const third = tokenRequest('wait-third')
  await untilGate('wait-third')
  expect((await second).status).toBe(401)
  gates.get('wait-first')!()
  expect((await first).status).toBe(401)
  gates.get('wait-third')!()
  expect((await third).status).toBe(401)
  // the three arrive on their own connections, in no fixed order
  const others = seen.filter((s) => s.client !== 'plain')
  expect(others).toHaveLength(5)
  expect(others).toEqual(expect.arrayContaining([
    { client: 'wait-first', at: 'start', path: '/token' },
    { client: 'plain-second', at: 'start', path: '/token' },
    { client: 'wait-third', at: 'start', path: '/token' },
    { client: 'wait-first', at: 'after-wait', path: '/token', readBack: 'wait-first' },
    { client: 'wait-third', at: 'after-wait', path: '/token', readBack: 'wait-third' },
  ]))
})
