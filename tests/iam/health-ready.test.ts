import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'
import { startSmtp, type SmtpCapture } from '../helpers/smtp'

const HMAC = { clientId: 'gateway', sharedSecret: 'a-shared-secret-of-at-least-32-characters!!' }

let outboxIam: IamServer
let smtpIam: IamServer
let silentSmtpIam: IamServer
let smtp: SmtpCapture
let silentSmtp: Server
beforeAll(async () => {
  smtp = await startSmtp()
  // accepts connections and never greets: an SMTP server that hangs
  silentSmtp = createServer(() => {})
  await new Promise<void>((resolve) => silentSmtp.listen(0, '127.0.0.1', resolve))
  const silentPort = (silentSmtp.address() as { port: number }).port
  ;[outboxIam, smtpIam, silentSmtpIam] = await Promise.all([
    // signed requests required, and the caller seen at a non-loopback address
    startIam({ config: { service: { Hmac: HMAC, proxy: { trust: true, ipToTrust: '127.0.0.1' } } } }),
    startIam({ config: { email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } } } }),
    startIam({ config: { email: { smtp: { host: '127.0.0.1', port: silentPort, secure: false } } } }),
  ])
}, 300_000)
afterAll(async () => {
  await Promise.all([outboxIam?.stop(), smtpIam?.stop(), silentSmtpIam?.stop(), smtp?.stop()])
  silentSmtp?.close()
})

describe('GET /health/ready', () => {
  it('answers 200 ready with each dependency up and the outbox named as such', async () => {
    const res = await fetch(`${outboxIam.url}/health/ready`, { headers: { 'x-forwarded-for': '198.51.100.7' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'up', storage: 'up', mail: 'outbox' } })
  })

  it('is exempt from HMAC from any address, while other routes still need a signature', async () => {
    const ready = await fetch(`${outboxIam.url}/health/ready`, { headers: { 'x-forwarded-for': '198.51.100.7' } })
    expect(ready.status).toBe(200)
    const config = await fetch(`${outboxIam.url}/operational/config`, { headers: { 'x-forwarded-for': '198.51.100.7' } })
    expect(config.status).toBe(401)
  })

  it('says mail up when the SMTP server answers', async () => {
    const res = await fetch(`${smtpIam.url}/health/ready`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'up', storage: 'up', mail: 'up' } })
  })

  it('answers 503 naming mail down when the SMTP server hangs, and still answers', async () => {
    const res = await fetch(`${silentSmtpIam.url}/health/ready`)
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await res.json()).toEqual({ status: 'unavailable', checks: { database: 'up', storage: 'up', mail: 'down' }, code: 'service_unavailable' })
  })

  it('answers probes in a row from one SMTP check while its result is fresh', async () => {
    const before = smtp.mails.length
    const statuses = await Promise.all(Array.from({ length: 5 }, async () => (await fetch(`${smtpIam.url}/health/ready`)).status))
    expect(statuses).toEqual([200, 200, 200, 200, 200])
    // a verify() never sends a mail: nothing was delivered by probing
    expect(smtp.mails.length).toBe(before)
  })
})
