/**
 * The floors the refresh and login rows are read against (bench/run.mjs) must do what a rotation
 * and a sign-in do, or their figures say nothing. bench/rotation-floor.mjs: each live token spent
 * exactly once, its successor filed and handed back, a spent token refused. bench/login-floor.mjs:
 * the right password opens a session row, a wrong one or an unknown address none; with webhooks,
 * each sign-in reaches every receiver path signed (verified by `standardwebhooks`). Skipped without
 * DATABASE_URL (PostgreSQL only, as the rows' floors are).
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { startLoginFloor, startRotationFloor } from '../../bench/lib/floors'
import { skippedWithout, titled } from '../helpers/skip-notes'
import { createThrowawayPg } from '../helpers/test-database'
import { waitUntil } from '../helpers/wait'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver'

const START_TIMEOUT_MS = 60_000

let db: Awaited<ReturnType<typeof createThrowawayPg>>
let floor: Awaited<ReturnType<typeof startRotationFloor>>
let loginFloor: Awaited<ReturnType<typeof startLoginFloor>>
let hookedDb: Awaited<ReturnType<typeof createThrowawayPg>>
let hookedFloor: Awaited<ReturnType<typeof startLoginFloor>>
let receiver: WebhookReceiver
const SECRETS = [0, 1].map(() => `whsec_${randomBytes(32).toString('base64')}`)
const EMAIL = 'floor@example.com'
const PASSWORD = 'correct horse battery staple 42'

const rotate = (token: string) => fetch(`${floor.url}/rotate`, { method: 'POST', headers: { cookie: `session=${token}` } })
const sessionCookie = (res: Response) => /^session=([^;]+)/.exec(res.headers.getSetCookie().find((line) => line.startsWith('session=')) ?? '')?.[1]

describe.skipIf(skippedWithout('postgres'))(titled('the floors of the bench', 'postgres'), () => {
  beforeAll(async () => {
    db = await createThrowawayPg(process.env.DATABASE_URL!)
    floor = await startRotationFloor(db.url, 3, 2)
    loginFloor = await startLoginFloor(db.url, EMAIL, PASSWORD)
    receiver = await startWebhookReceiver('127.0.0.1')
    SECRETS.forEach((secret, i) => receiver.secrets.set(`/floor/${i}`, [secret]))
    hookedDb = await createThrowawayPg(process.env.DATABASE_URL!)
    hookedFloor = await startLoginFloor(hookedDb.url, EMAIL, PASSWORD, { urls: SECRETS.map((_, i) => `${receiver.base}/floor/${i}`), secrets: SECRETS })
  }, START_TIMEOUT_MS)

  afterAll(async () => {
    await floor?.stop()
    await loginFloor?.stop()
    await hookedFloor?.stop()
    await receiver?.stop()
    await db?.drop()
    await hookedDb?.drop()
  })

  it('spends a live token once, hands back its successor and refuses the spent one', async () => {
    const [first] = floor.tokens as string[]
    const rotated = await rotate(first!)
    expect(rotated.status).toBe(201)
    const next = sessionCookie(rotated)
    expect(next).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(next).not.toBe(first)
    expect(rotated.headers.getSetCookie().some((line) => /^access=[\w-]+\.[\w-]+\.[\w-]+;/.test(line))).toBe(true)

    expect((await rotate(first!)).status).toBe(401)
    const again = await rotate(next!)
    expect(again.status).toBe(201)
    expect(sessionCookie(again)).not.toBe(next)
  })

  it('files each successor as the one active token of its family, linked from the spent one', async () => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      // three families, two spent tokens of history each; the test above rotated one family twice
      const { rows } = await client.query<{ family_id: string; active: string; rotated: string; linked: string }>(`
        select family_id, count(*) filter (where status = 'active') as active, count(*) filter (where status = 'rotated') as rotated,
          count(*) filter (where replaced_by is not null) as linked
        from floor_tokens group by family_id order by rotated desc`)
      expect(rows.map((r) => Number(r.active))).toEqual([1, 1, 1])
      expect(rows.map((r) => Number(r.rotated))).toEqual([4, 2, 2])
      expect(rows.map((r) => Number(r.linked))).toEqual([2, 0, 0])
    } finally {
      await client.end()
    }
  })

  it('answers 401 without a session cookie', async () => {
    expect((await fetch(`${floor.url}/rotate`, { method: 'POST' })).status).toBe(401)
  })

  it('the login floor opens a session for the right password only, and refuses a wrong one and an unknown address', async () => {
    const login = (email: string, password: string) =>
      fetch(`${loginFloor.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })
    const sessions = async () => {
      const client = new pg.Client({ connectionString: db.url })
      await client.connect()
      try {
        return Number((await client.query<{ n: string }>('select count(*) as n from floor_sessions')).rows[0]!.n)
      } finally {
        await client.end()
      }
    }
    const opened = await login(EMAIL, PASSWORD)
    expect(opened.status).toBe(201)
    expect(sessionCookie(opened)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await sessions()).toBe(1)
    expect((await login(EMAIL, `${PASSWORD}!`)).status).toBe(401)
    expect((await login('nobody@example.com', PASSWORD)).status).toBe(401)
    expect(await sessions()).toBe(1)
  })

  it('the login floor with webhooks sends each sign-in, signed, to every receiver path, and nothing for a refused one', async () => {
    const login = (password: string) =>
      fetch(`${hookedFloor.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password }) })
    expect((await login(`${PASSWORD}!`)).status).toBe(401)
    expect((await login(PASSWORD)).status).toBe(201)
    await waitUntil(() => receiver.received.length >= SECRETS.length, 'the sign-in at every receiver path')
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/floor/0', '/floor/1'])
    for (const delivery of receiver.received) {
      expect(delivery.error).toBeNull()
      expect(delivery.verified).toMatchObject({ type: 'session.created' })
    }
  })
})
