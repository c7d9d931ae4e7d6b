/**
 * The first platform administrator without a restart (features/admin/bootstrap.ts): while no
 * account holds the role, the IAM writes a one-time code to <dataDir>/iam/admin-bootstrap-code at
 * start, and POST /auth/admin-bootstrap with it makes the signed-in account an administrator, once.
 * An IAM of its own: the code is spent by the file's first good use.
 */
import { readFileSync, statSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { flushedLogs, waitForLog } from '../helpers/logs'
import { authed } from './second-factor-http'

let iam: IamServer
let file: string
let code: string
/** the account the code made an administrator */
let winner: Session

beforeAll(async () => {
  iam = await startIam({ config: PROXY_CONFIG })
  file = join(iam.dataDir, 'iam', 'admin-bootstrap-code')
  code = readFileSync(file, 'utf8').trim()
}, 180_000)
afterAll(() => iam?.stop())

const redeem = (s: Session, value: string) => authed(iam, s, 'POST', '/auth/admin-bootstrap', { code: value })
const adminList = (s: Session) => authed(iam, s, 'GET', '/admin/users')

describe('the first administrator by the start code', () => {
  it('the start writes a code only the server account can read and logs where it is, never the code', async () => {
    expect(code).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    await waitForLog(iam, (line) => line.includes(file))
    expect((await flushedLogs(iam)).join('\n')).not.toContain(code)
  })

  it('a wrong code is refused and makes no administrator', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.40' } })
    const res = await redeem(s, `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}`)
    const body = (await res.json()) as Json
    expect(res.status).toBe(403)
    expect(body.code).toBe('admin_bootstrap_code_invalid')
    expect((await adminList(s)).status).toBe(403)
    expect(existsSync(file)).toBe(true)
  })

  it('two accounts sending the right code at once: exactly one becomes the administrator, and the code is spent', async () => {
    const [a, b] = await Promise.all([signupUser(iam, { client: { ip: '203.0.113.41' } }), signupUser(iam, { client: { ip: '203.0.113.42' } })])
    const answers = await Promise.all([redeem(a, code), redeem(b, code)])
    const statuses = answers.map((res) => res.status).sort()
    expect(statuses).toEqual([200, 403])
    winner = answers[0].status === 200 ? a : b
    const loser = winner === a ? b : a
    const bodies = (await Promise.all(answers.map((res) => res.json()))) as Json[]
    expect(bodies.find((body) => body.ok === true)?.data).toEqual({ admin: true })
    expect(bodies.find((body) => body.ok !== true)?.code).toBe('admin_bootstrap_code_invalid')

    expect((await adminList(winner)).status).toBe(200)
    expect((await adminList(loser)).status).toBe(403)
    expect(existsSync(file)).toBe(false)
    // spent: the same code again, even by the new administrator, is refused
    expect((await redeem(loser, code)).status).toBe(403)
  })

  it('the grant is recorded on the new administrator as made by the bootstrap code', async () => {
    const events = await authed(iam, winner, 'GET', '/auth/security-events?limit=100')
    expect(events.status).toBe(200)
    const list = ((await events.json()) as { data: { events: Array<{ type: string; details: Json }> } }).data.events
    const granted = list.filter((e) => e.type === 'admin_granted')
    expect(granted).toHaveLength(1)
    expect(granted[0].details).toMatchObject({ by: 'bootstrap-code' })
  })
})
