/**
 * The configs `npm start` writes (scripts/start.mjs devConfigs): the IAM must trust the gateway's
 * address as its proxy, or every user reaches it as the gateway's 127.0.0.1, and
 * must take only version 2 HMAC signatures, which the gateway always sends (4.2).
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../iam/lib/config'
import { parseGatewayConfig } from '../../server/utils/gateway-config'

type Json = Record<string, unknown>
interface StartModule {
  devConfigs(input: Json): { iam: Json; gateway: Json }
  startUrls(ports: { iam: number; gateway: number; demo: number }): { gateway: string; iam: string; demo: string }
}

// a computed specifier: scripts/start.mjs is plain JavaScript without type declarations
const startUrl = pathToFileURL(join(import.meta.dirname, '..', '..', 'scripts', 'start.mjs')).href
const { devConfigs, startUrls } = (await import(startUrl)) as StartModule

const hmac = { clientId: 'gateway', sharedSecret: 'dev_0123456789abcdefghijklmnopqrstuvwxyz' }
const generated = devConfigs({
  iamUrl: 'http://127.0.0.1:3001',
  gatewayUrl: 'http://127.0.0.1:3000',
  gatewayIp: '127.0.0.1',
  hmac,
  cookieSecret: 'dev_cookie-secret-0123456789abcdefghijklmnop',
  demo: undefined,
})

describe('npm start generated configs', () => {
  it("makes the IAM trust exactly the gateway's address as its proxy", () => {
    expect(generated.iam).toMatchObject({ service: { proxy: { trust: true, ipToTrust: '127.0.0.1' } } })
    expect(parseConfig(generated.iam).service.proxy).toEqual({ trust: true, ipToTrust: '127.0.0.1' })
  })
  it('makes the IAM refuse version 1 HMAC signatures', () => {
    expect(parseConfig(generated.iam).service.Hmac).toMatchObject({ ...hmac, requireBodyDigest: true })
  })
  it('gives passkeys the gateway as localhost (browsers refuse an IP address as rpID)', () => {
    expect(parseConfig(generated.iam).passkeys).toMatchObject({ rpID: 'localhost', origins: ['http://localhost:3000'] })
  })
  it('sends browsers to one host: the printed gateway address is the mail links\' and the passkey origin, by name', () => {
    const urls = startUrls({ iam: 3001, gateway: 3000, demo: 3002 })
    expect(urls.gateway).toBe('http://localhost:3000')
    // the IAM is called by the gateway only, on loopback
    expect(urls.iam).toBe('http://127.0.0.1:3001')
    const iam = parseConfig(devConfigs({ iamUrl: urls.iam, gatewayUrl: urls.gateway, gatewayIp: '127.0.0.1', hmac, cookieSecret: 'dev_cookie-secret-0123456789abcdefghijklmnop' }).iam)
    expect(iam.magic_links.domain).toBe(urls.gateway)
    expect(iam.passkeys).toMatchObject({ rpID: 'localhost', origins: [urls.gateway] })
    expect(iam.jwt.access_tokens.audience).toBe(urls.gateway)
    // the OpenID Provider's issuer: what relying parties compare byte for byte, behind the gateway's /oidc
    expect(iam.oidc.issuer).toBe(`${urls.gateway}/oidc`)
  })
  it('writes a loopback IP given as the gateway address as localhost everywhere a browser is sent', () => {
    // `generated` above was made from http://127.0.0.1:3000
    expect(parseConfig(generated.iam).magic_links.domain).toBe('http://localhost:3000')
  })
  it('routes the proxy API orders to the example API on its default address, with an audience the IAM issues tokens for', () => {
    const gateway = parseGatewayConfig(generated.gateway)
    const iam = parseConfig(generated.iam)
    const orders = gateway.apis.find((api) => api.name === 'orders')
    // examples/api/server.mjs listens on 127.0.0.1:4100 and takes http://localhost:4100/ by default
    expect(orders).toMatchObject({ upstream: 'http://127.0.0.1:4100', audience: 'http://localhost:4100/' })
    expect(iam.jwt.api_access_tokens.audiences).toContain(orders?.audience)
    expect(iam.oidc.resourceServers.map((server) => server.indicator)).toContain(orders?.audience)
  })
  it('leaves the gateway trusting no proxy (nothing stands in front of it)', () => {
    expect(parseGatewayConfig(generated.gateway).proxy).toEqual({ trust: false })
  })
})

describe('gateway proxy config', () => {
  it('refuses proxy.trust without the IP address of the proxy', () => {
    expect(() => parseGatewayConfig({ proxy: { trust: true } })).toThrow(/proxy\.ipToTrust/)
    expect(() => parseGatewayConfig({ proxy: { trust: true, ipToTrust: 'lb.internal' } })).toThrow(/proxy\.ipToTrust/)
    expect(parseGatewayConfig({ proxy: { trust: true, ipToTrust: '10.0.0.5' } }).proxy).toEqual({ trust: true, ipToTrust: '10.0.0.5' })
  })
})
