/**
 * iam/features/oidc/provider-context.ts switches oidc-provider's request storage off while none of
 * its requests is in flight (on Node 22 the storage in use turns on a promise hook for every promise
 * of the process). Run against the real library: the storage it reads is the one switched, each
 * request still finds its own context from start to answer, and overlapping requests keep it on
 * until the last has answered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { inProviderRequest, providerStorageEnabled } from '../../iam/features/oidc/provider-context'

const contextOf = () => (Provider as unknown as { ctx?: { path: string } }).ctx
const gates = new Map<string, () => void>()
const seen: Array<{ client: string; at: 'start' | 'after-wait'; context: string | undefined }> = []
let url = ''
let close: () => Promise<void>

/**
 * The provider reads its clients through the adapter inside its request context, as it reads our
 * tables (iam/features/oidc/adapter.ts): each lookup records the context it finds, and a client id
 * starting with `wait-` holds its request until the test opens that gate. No client exists.
 */
class RecordingAdapter {
  constructor(private readonly model: string) {}
  async find(id: string) {
    if (this.model !== 'Client') return undefined
    seen.push({ client: id, at: 'start', context: contextOf()?.path })
    if (id.startsWith('wait-')) {
      await new Promise<void>((resolve) => gates.set(id, resolve))
      seen.push({ client: id, at: 'after-wait', context: contextOf()?.path })
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
  const provider = new Provider('http://127.0.0.1/', { adapter: RecordingAdapter, features: { clientCredentials: { enabled: true } } })
  const handle = provider.callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void>
  const server = createServer((req, res) => void inProviderRequest(() => handle(req, res)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  close = () => new Promise((resolve) => server.close(() => resolve()))
})
afterAll(() => close())

const tokenRequest = (client: string) =>
  fetch(`${url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client, client_secret: 'secret' }),
  })

const untilGate = async (name: string) => {
  while (!gates.has(name)) await new Promise((resolve) => setTimeout(resolve, 5))
}
// the storage is switched off in inProviderRequest's finally, a moment after the answer reached the client
const untilOff = async () => {
  while (providerStorageEnabled()) await new Promise((resolve) => setTimeout(resolve, 5))
}

it('a provider request finds its context, and the storage is off once it has answered', async () => {
  const res = await tokenRequest('plain')
  expect(res.status).toBe(401) // no such client: the lookup ran, in the request's context
  expect(seen.at(-1)).toEqual({ client: 'plain', at: 'start', context: '/token' })
  await untilOff()
  expect(providerStorageEnabled()).toBe(false)
})

it('overlapping requests keep the storage on until the last answered, each with its own context throughout', async () => {
  const first = tokenRequest('wait-first')
  await untilGate('wait-first')
  const second = tokenRequest('plain-second')
  const third = tokenRequest('wait-third')
  await untilGate('wait-third')
  expect((await second).status).toBe(401)
  gates.get('wait-first')!()
  expect((await first).status).toBe(401)
  // two have answered, one is waiting: the storage is still on
  expect(providerStorageEnabled()).toBe(true)
  gates.get('wait-third')!()
  expect((await third).status).toBe(401)
  // the three arrive on their own connections, in no fixed order
  const others = seen.filter((s) => s.client !== 'plain')
  expect(others).toHaveLength(5)
  expect(others).toEqual(expect.arrayContaining([
    { client: 'wait-first', at: 'start', context: '/token' },
    { client: 'plain-second', at: 'start', context: '/token' },
    { client: 'wait-third', at: 'start', context: '/token' },
    { client: 'wait-first', at: 'after-wait', context: '/token' },
    { client: 'wait-third', at: 'after-wait', context: '/token' },
  ]))
  await untilOff()
  expect(providerStorageEnabled()).toBe(false)
})
