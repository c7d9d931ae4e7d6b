/**
 * SIGTERM under load (docs/operations.md): the IAM stops accepting, answers every request
 * it had received, sends the mails those requests started, closes its pools and exits 0. A second
 * instance on the same database then finds everything the first one answered.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, STRONG_PASSWORD, uniqueEmail, type Client } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'
import { createThrowawayPg, migratedPgliteDir } from '../helpers/test-database'

// no more sign-ups in flight than the IAM's pool has connections (iam/db/database.ts)
const SIGNUPS = 10
const SLOW = 10
const WIDE = { points: 100_000, duration: 60, blockDuration: 60 }
// The outage bounds (a Redis command past storage.timeoutMs, a connection not had within
// database.connectTimeoutMs) answer 503 by design, and a CI box running other suites beside this one
// can reach them; widened here so a 503 can only come from the shutdown, which is what is tested.
const PATIENT = { storage: { timeoutMs: 20_000 }, database: { connectTimeoutMs: 20_000 } }
const CONFIG = { ...PROXY_CONFIG, ...PATIENT, rate_limiters: { signup: WIDE, login: WIDE } }

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** A database both instances open: a throwaway PostgreSQL database, or PGlite files on disk. */
async function sharedDatabase(): Promise<string> {
  if (process.env.DATABASE_URL) {
    const pg = await createThrowawayPg(process.env.DATABASE_URL)
    cleanups.push(pg.drop)
    return pg.url
  }
  const dir = mkdtempSync(join(tmpdir(), 'iam-shutdown-db-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return migratedPgliteDir(dir)
}

async function requestsSeen(iam: IamServer): Promise<{ received: number; inFlight: number }> {
  return (await (await fetch(`${iam.url}/__test/requests`)).json()) as { received: number; inFlight: number }
}

describe('graceful shutdown', () => {
  it('answers every request received before SIGTERM, keeps all their writes and mails, and exits 0', async () => {
    const share = { databaseUrl: await sharedDatabase(), storagePrefix: `sd${Date.now().toString(36)}` }
    const first = await startIam({ share, config: CONFIG, env: { IAM_TEST_ROUTES: '1' } })
    cleanups.push(() => first.stop())
    const devices: Client[] = await Promise.all(Array.from({ length: SIGNUPS }, (_, i) => newDevice(first, { ip: `198.51.100.${i + 1}` })))
    const emails = devices.map(() => uniqueEmail('shutdown'))
    const before = (await requestsSeen(first)).received

    const exited = new Promise<number | null>((resolve) => first.process.once('exit', (code) => resolve(code)))
    const slow = Array.from({ length: SLOW }, () => fetch(`${first.url}/__test/slow?ms=5000`).then(async (res) => ({ status: res.status, body: await res.json() })))
    const signups = devices.map((client, i) =>
      call(first, 'POST', '/signup', { client, body: signupBody(emails[i]!) }).then(async (res) => ({ status: res.status, body: await res.json() })),
    )
    // SIGTERM only once the server has every request: one sent but not yet accepted is refused by design
    for (let polls = 0; (await requestsSeen(first)).received < before + SLOW + SIGNUPS; polls++) {
      if (polls > 500) throw new Error('the requests never reached the server')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const inFlight = (await requestsSeen(first)).inFlight
    expect(inFlight).toBeGreaterThanOrEqual(SLOW)
    const signalled = performance.now()
    first.process.kill('SIGTERM')

    // no reset, no refusal: every request gets its full answer
    const answers = await Promise.all([...slow, ...signups])
    expect(answers.slice(0, SLOW)).toEqual(Array.from({ length: SLOW }, () => ({ status: 200, body: { ok: true } })))
    // a refusal shows its body in the failure
    expect(answers.slice(SLOW).map((a) => (a.status === 201 ? 201 : a))).toEqual(emails.map(() => 201))
    expect(await exited).toBe(0)
    console.log(`[shutdown] ${inFlight} requests in flight at SIGTERM; exited 0 after ${(performance.now() - signalled).toFixed(0)} ms`)
    await waitForLog(first, (line) => line.includes('shutdown: pools closed'))
    // the verification mail each signup started after its answer was written before the exit
    const outbox = readdirSync(join(first.dataDir, 'mail')).filter((name) => name.endsWith('.eml'))
    expect(outbox).toHaveLength(SIGNUPS)
    // new connections are refused once it stopped
    await expect(fetch(`${first.url}/health`)).rejects.toThrow()

    const second = await startIam({ share, config: CONFIG })
    cleanups.push(() => second.stop())
    const logins = await Promise.all(
      devices.map((client, i) => call(second, 'POST', '/login', { client, body: { email: emails[i]!, password: STRONG_PASSWORD } })),
    )
    expect(logins.map((res) => res.status)).toEqual(emails.map(() => 200))
  }, 240_000)
})
