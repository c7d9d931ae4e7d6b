/**
 * Shared set-up of the BFF tests: the real built IAM (HMAC on, version 2 required, trusting the
 * gateway's X-Forwarded-For) behind the built gateway, and a tiny cookie jar standing in for a browser.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'
import { verificationQuery } from '../helpers/confirm-email'
import { setupGateway, type TestGateway } from '../helpers/nuxt-gateway'
import { BFF_IAM_BASE, hmac, sharedBffIam } from '../helpers/shared-bff-iam'

export { hmac }

type Config = Record<string, unknown>
/** a config, or a function giving it when the hooks run (for ports of servers the file starts first) */
type Lazy = Config | (() => Config)
const resolve = (config: Lazy) => (typeof config === 'function' ? config() : config)
interface StackEnv {
  iam?: Record<string, string>
  gateway?: Record<string, string>
}

/** The gateway's config in front of `iam`, signing with the test HMAC client. */
const gatewayConfigFor = (iam: { url: string }, config: Config) => ({ iam: { url: iam.url, hmac }, cookieSecret: 'bff-test-cookie-secret-0123456789abcdef01', ...config })

export interface Stack {
  iam: IamServer
  gateway: TestGateway
  /** a new IAM with `iamConfig` and the gateway restarted in front of it: a file's other scenario */
  restart(iamConfig?: Config, gatewayConfig?: Config, env?: StackEnv): Promise<void>
}

/**
 * IAM + gateway wired with HMAC, for the whole file: call at its top level. The IAM starts in a
 * `beforeAll`, the gateway through @nuxt/test-utils (tests/helpers/nuxt-gateway.ts) after it.
 */
export async function setupStack(iamConfig: Lazy = {}, gatewayConfig: Lazy = {}, env: StackEnv = {}): Promise<Stack> {
  const iams: IamServer[] = []
  // configured as `npm start` configures it: trusting the gateway's address, version 2 signatures only
  const startStackIam = async (config: Config, iamEnv?: Record<string, string>) => {
    const iam = await startIam({ config: { ...BFF_IAM_BASE, ...config }, env: iamEnv })
    iams.push(iam)
    return iam
  }
  let iam: IamServer | undefined
  beforeAll(async () => {
    iam = await startStackIam(resolve(iamConfig), env.iam)
  })
  afterAll(() => Promise.all(iams.map((server) => server.stop())))
  const gateway = await setupGateway({ config: () => gatewayConfigFor(iam!, resolve(gatewayConfig)), env: env.gateway })
  return {
    get iam() {
      return iam!
    },
    gateway,
    async restart(nextIamConfig = {}, nextGatewayConfig = {}, nextEnv = {}) {
      iam = await startStackIam(nextIamConfig, nextEnv.iam)
      await gateway.restart(gatewayConfigFor(iam, nextGatewayConfig), nextEnv.gateway)
    },
  }
}

/**
 * The gateway (with `gatewayConfig`) in front of the gateway project's shared IAM
 * (tests/helpers/shared-bff-iam.ts), for a file whose IAM needs no config of its own: one IAM
 * start less per file. Call at the file's top level.
 */
export async function setupStackOnSharedIam(gatewayConfig: Lazy = {}): Promise<{ gateway: TestGateway; iam: { dataDir: string } }> {
  const iam = sharedBffIam()
  return { gateway: await setupGateway({ config: () => gatewayConfigFor(iam, resolve(gatewayConfig)) }), iam: { dataDir: iam.dataDir } }
}

/**
 * Confirms `email` as its owner does: the verification link its sign-up mailed (read from the
 * IAM's outbox in `iam.dataDir`), posted through the browser `b` that signed up, so it verifies as
 * it is (on another device it would also ask for the password). Adding two-step sign-in or a
 * passkey needs a confirmed address.
 */
export async function confirmEmailThrough(b: ReturnType<typeof browserLike>, iam: { dataDir: string }, email: string): Promise<void> {
  const query = await verificationQuery({ dataDir: iam.dataDir }, email)
  const res = await b.call(`/api/auth/verify-email${query}`, { method: 'POST' })
  if (res.status !== 200) throw new Error(`verify-email answered ${res.status}: ${res.text}`)
}

/** A cookie jar + fetch with the headers a same-origin page of the gateway sends. */
export function browserLike(base: string, userAgent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36') {
  const jar = new Map<string, string>()
  const origin = new URL(base).origin
  const remember = (res: Response) => {
    for (const raw of res.headers.getSetCookie()) {
      const [pair = ''] = raw.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const expired = /max-age=0\b/i.test(raw) || /expires=Thu, 01 Jan 1970/i.test(raw) || value === ''
      if (expired) jar.delete(name)
      else jar.set(name, value)
    }
  }
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  return {
    jar,
    /** fetch from a page of the gateway: Origin, Sec-Fetch-Site same-origin, X-CSRF, cookies */
    async call(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = {
        'user-agent': userAgent,
        accept: 'application/json',
        'sec-fetch-site': 'same-origin',
        cookie: cookieHeader(),
        ...(init.method && init.method !== 'GET' ? { origin, 'x-csrf': '1' } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      }
      const res = await fetch(base + path, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
        redirect: 'manual',
      })
      remember(res)
      const text = await res.text()
      let json: Record<string, unknown>
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {}
      } catch {
        json = {}
      }
      return { status: res.status, headers: res.headers, text, json, setCookies: res.headers.getSetCookie() }
    },
  }
}

let counter = 0
/** A fresh address per call, unique across the files sharing an IAM (MX checks are off in tests). */
export const freshEmail = (tag = 'user') => `${tag}.${Date.now().toString(36)}${(counter++).toString(36)}.${randomBytes(3).toString('hex')}@example.com`
export const PASSWORD = 'correct horse battery staple 42'
