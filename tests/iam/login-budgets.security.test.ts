/**
 * The login budgets count failures, not successes (rate_limiters.login, loginAccountDelay on their
 * defaults): they exist against password guessing, so a person who mistyped a few times gets in
 * with the right password at once, and the sign-ins of everyone behind one address (an office, a
 * family) never use up that address's budget for failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupUser, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'

// the defaults: 10 per 15 min per IP + address, 50 per IP (LOGIN_IP_FACTOR 5), 5 free failures per address
const IP_BUDGET = 50
const FREE_FAILURES = 5
const WRONG = 'not the password at all'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: PROXY_CONFIG })
}, 240_000)
afterAll(() => iam?.stop())

const login = (email: string, password: string, client: Client, ip: string) => call(iam, 'POST', '/login', { client: { ...client, ip }, body: { email, password } })

describe('login budgets count failures, not successes', () => {
  let owner: Session
  beforeAll(async () => {
    owner = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.20' }) })
  })

  it('signs in at once with the right password after five typos', async () => {
    const phone = await newDevice(iam, { ip: '203.0.113.5' })
    for (let i = 0; i < FREE_FAILURES; i++) expect((await login(owner.email, WRONG, phone, '203.0.113.5')).status).toBe(401)
    expect((await login(owner.email, owner.password, phone, '203.0.113.5')).status).toBe(200)
  })

  it('never refuses successful sign-ins from one address, however many, and still counts that address\'s failures', async () => {
    const office = '192.0.2.77'
    const desk = await newDevice(iam, { ip: office })
    const colleague = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.21' }) })
    const statuses: number[] = []
    for (let i = 0; i < IP_BUDGET + 10; i++) {
      const person = i % 2 ? owner : colleague
      statuses.push((await login(person.email, person.password, desk, office)).status)
    }
    expect(statuses).toEqual(new Array(IP_BUDGET + 10).fill(200))
    // the budget is whole for failures: guesses at many addresses from there are still capped at IP_BUDGET
    const failures: number[] = []
    for (let i = 0; i < IP_BUDGET + 1; i++) failures.push((await login(uniqueEmail('guess'), WRONG, desk, office)).status)
    expect(failures).toEqual([...new Array(IP_BUDGET).fill(401), 429])
  })
})
