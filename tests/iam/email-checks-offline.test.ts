/**
 * A newcomer's first signup works offline: the IAM config that `npm start` generates
 * (scripts/start.mjs devConfigs) turns the MX check off, so a resolver answering NXDOMAIN for
 * every name does not refuse the address. With the check on, a resolver that cannot be reached
 * allows the address and the log names the resolver problem.
 */
// store-independent: its subject is the MX check and its resolver; the sign-ups it stores are those tests/iam/signup.test.ts runs on both
import { createSocket } from 'node:dgram'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { solveChallenge } from 'altcha-lib/v1'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, uniqueEmail } from '../helpers/accounts'
import { ROOT } from '../helpers/build'
import { startDnsServer, type DnsServer } from '../helpers/dns-server'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'

interface StartScript {
  devConfigs(opts: { iamUrl: string; gatewayUrl: string; gatewayIp: string; cookieSecret: string }): { iam: Json; gateway: Json }
}

/** A UDP port nothing listens on: a query there is refused at once (ICMP port unreachable). */
async function closedUdpPort(): Promise<number> {
  const socket = createSocket('udp4')
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address()
  await new Promise<void>((resolve) => socket.close(resolve))
  return port
}

let nxdomain: DnsServer
let devProfile: IamServer
let unreachableResolver: IamServer
let devConfig: Json
beforeAll(async () => {
  const { devConfigs } = (await import(pathToFileURL(join(ROOT, 'scripts', 'start.mjs')).href)) as StartScript
  // no HMAC here: the test calls the IAM directly, as the gateway would with its shared secret
  devConfig = devConfigs({ iamUrl: 'http://127.0.0.1:3001', gatewayUrl: 'http://127.0.0.1:3000', gatewayIp: '127.0.0.1', cookieSecret: 'x' }).iam
  nxdomain = await startDnsServer({}) // knows no zone: NXDOMAIN for every name
  const port = await closedUdpPort()
  const devEmailChecks = (devConfig.emailChecks ?? {}) as Json
  ;[devProfile, unreachableResolver] = await Promise.all([
    startIam({
      config: {
        ...devConfig,
        service: { ...(devConfig.service as Json), ...PROXY_CONFIG.service },
        // the test helper turns MX off by default: start from the production default (on) so only
        // the generated config can turn it off
        emailChecks: { mx: true, ...devEmailChecks, dnsServers: [nxdomain.server] },
      },
    }),
    startIam({ config: { ...PROXY_CONFIG, emailChecks: { mx: true, dnsServers: [`127.0.0.1:${port}`] } } }),
  ])
}, 240_000)
afterAll(async () => {
  await Promise.all([devProfile?.stop(), unreachableResolver?.stop()])
  await nxdomain?.stop()
})

describe('the npm start dev profile offline', () => {
  it('generates a config with the MX check off', () => {
    expect(devConfig.emailChecks).toEqual({ mx: false })
  })

  it('signs up with 201 through POST /signup while the resolver answers NXDOMAIN for every name', async () => {
    const device = await newDevice(devProfile, { ip: '203.0.113.140' })
    // the generated config turns the proof of work on: the test solves it as the sign-up page does
    const asked = await call(devProfile, 'GET', '/auth/bot-challenge', { client: device })
    const c = ((await asked.json()) as { data: { challenge: { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string } } }).data.challenge
    const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise
    const botProof = Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: solution!.number, salt: c.salt, signature: c.signature })).toString('base64')
    const res = await call(devProfile, 'POST', '/signup', { client: device, body: { ...signupBody(uniqueEmail('offline')), botProof } })
    expect(res.status).toBe(201)
    expect(nxdomain.queries).toEqual([])
  })
})

describe('MX check with an unreachable resolver', () => {
  it('allows the address (a lookup error other than no such domain allows) and logs "DNS resolver unreachable"', async () => {
    const device = await newDevice(unreachableResolver, { ip: '203.0.113.141' })
    const email = uniqueEmail('noresolver')
    const res = await call(unreachableResolver, 'POST', '/signup', { client: device, body: signupBody(email) })
    expect(res.status).toBe(201)
    const warning = await waitForLog(unreachableResolver, 'could not check the mail domain')
    expect(JSON.parse(warning)).toMatchObject({
      level: 'warn',
      msg: 'could not check the mail domain: DNS resolver unreachable; the address is allowed',
      code: 'ECONNREFUSED',
    })
    expect(warning).not.toContain(email)
  })
})
