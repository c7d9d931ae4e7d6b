/**
 * The floors the refresh and login rows are read against (bench/run.mjs) must do what a rotation
 * and a sign-in do, or their figures say nothing. bench/rotation-floor.mjs: each live token spent
 * exactly once, its successor filed and handed back, a spent token refused. bench/login-floor.mjs:
 * the right password opens a session row, a wrong one or an unknown address none. Skipped without
 * DATABASE_URL (PostgreSQL only, as the rows' floors are).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { startLoginFloor, startRotationFloor } from '../../bench/lib/floors'
import { skippedWithout, titled } from '../helpers/skip-notes'
import { createThrowawayPg } from '../helpers/test-database'

const START_TIMEOUT_MS = 60_000

let db: Awaited<ReturnType<typeof createThrowawayPg>>
let floor: Awaited<ReturnType<typeof startRotationFloor>>
let loginFloor: Awaited<ReturnType<typeof startLoginFloor>>
const EMAIL = 'floor@example.com'
const PASSWORD = 'correct horse battery staple 42'

const rotate = (token: string) => fetch(`${floor.url}/rotate`, { method: 'POST', headers: { cookie: `session=${token}` } })
const sessionCookie = (res: Response) => /^session=([^;]+)/.exec(res.headers.getSetCookie().find((line) => line.startsWith('session=')) ?? '')?.[1]

describe.skipIf(skippedWithout('postgres'))(titled('the floors of the bench', 'postgres'), () => {
  beforeAll(async () => {
    db = await createThrowawayPg(process.env.DATABASE_URL!)
    floor = await startRotationFloor(db.url, 3, 2)
    loginFloor = await startLoginFloor(db.url, EMAIL, PASSWORD)
  }, START_TIMEOUT_MS)

  afterAll(async () => {
    await floor?.stop()
    await loginFloor?.stop()
    await db?.drop()
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
})
