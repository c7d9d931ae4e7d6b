import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, PROXY_CONFIG, signupUser } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'
import { writeMmdb } from '../helpers/mmdb'

let iam: IamServer
let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmdb-'))
  const mmdbPath = join(dir, 'geo.mmdb')
  writeMmdb(mmdbPath, [
    { cidr: '203.0.113.0/24', record: { country: { iso_code: 'DE', names: { en: 'Germany' } }, autonomous_system_number: 3320, autonomous_system_organization: 'DTAG' } },
    { cidr: '192.0.2.0/24', record: { country: { iso_code: 'FR', names: { en: 'France' } }, autonomous_system_number: 3215, autonomous_system_organization: 'Orange' } },
    { cidr: '198.51.100.0/24', record: { country: { iso_code: 'US' }, autonomous_system_number: 16509, traits: { is_hosting_provider: true } } },
  ])
  // IP drift off: so the geo checks (reputation, country/ASN drift) decide on their own
  iam = await startIam({ config: { ...PROXY_CONFIG, geo: { mmdbPath }, anomalies: { ipDrift: 'off' } } })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('geo-based anomaly checks (local mmdb)', () => {
  it('passes while country and ASN stay the same', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.140' } })
    expect((await authedGet(iam, s, '/secret/data', { ip: '203.0.113.141' })).status).toBe(200)
  })

  it('asks for MFA when the country and ASN change (fingerprint drift)', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.142' } })
    const res = await authedGet(iam, s, '/secret/data', { ip: '192.0.2.142' })
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('FINGERPRINT_DRIFT'))
  })

  it('asks for MFA from a hosting network (device reputation), without banning the device', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.143' } })
    const res = await authedGet(iam, s)
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' })
    await waitForLog(iam, (l) => l.includes('DEVICE_REPUTATION'))
    const check = await call(iam, 'GET', '/check', { client: s })
    expect(check.status).toBe(200)
    expect(((await check.json()) as Json).results).toMatchObject({ banned: false })
  })
})
