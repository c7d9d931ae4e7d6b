/**
 * The worker pools of hash-pool.ts. Imported hashes: a verification past its deadline answers
 * `timeout` and its worker is replaced, work past the queue bound is refused at once, and a hash
 * its algorithm cannot read is a failure the next job does not inherit. Our own Argon2id: the
 * library's own results, jobs posted ahead, and a lost thread is never a wrong password.
 */
import * as argon2 from '@node-rs/argon2'
import bcrypt from 'bcryptjs'
import { afterAll, describe, expect, it } from 'vitest'
import { createHashPool, type HashPool } from '../../iam/features/passwords/hash-pool'
import { createPasswordHasher } from '../../iam/features/passwords/hasher'
import { parseImportedHash } from '../../iam/features/passwords/imported-hashes'
import { CapacityExceeded, isDependencyOutage } from '../../iam/lib/outage'

const pools: Array<ReturnType<typeof createHashPool>> = []
afterAll(() => Promise.all(pools.map((made) => made.close())))
/** A pool closed after the file's tests. */
const pool = (options: Parameters<typeof createHashPool>[0]) => {
  const made = createHashPool(options)
  pools.push(made)
  return made
}

describe('the worker pool that verifies imported hashes', () => {
  const cheap = bcrypt.hashSync('pw', 4)
  // bcryptjs at cost 12 is hundreds of milliseconds of one core on any machine: far past 20 ms
  const slow = bcrypt.hashSync('pw', 12)

  it('answers a verification past its deadline as timed out, replaces the worker, and verifies the next one', async () => {
    const p = pool({ size: 1, timeoutMs: 60_000 })
    expect(await p.run({ kind: 'bcrypt', hash: cheap, password: 'pw' })).toEqual({ type: 'done', match: true })
    expect(p.workersStarted).toBe(1)
    expect(await p.run({ kind: 'bcrypt', hash: slow, password: 'pw' }, 20)).toEqual({ type: 'timeout' })
    expect(await p.run({ kind: 'bcrypt', hash: cheap, password: 'pw' })).toEqual({ type: 'done', match: true })
    expect(await p.run({ kind: 'bcrypt', hash: cheap, password: 'not it' })).toEqual({ type: 'done', match: false })
    expect(p.workersStarted).toBe(2)
  })

  it('refuses work past its queue bound at once, and finishes what it took', async () => {
    const p = pool({ size: 1, timeoutMs: 60_000, queueMax: 1 })
    const running = p.run({ kind: 'bcrypt', hash: cheap, password: 'pw' })
    const queued = p.run({ kind: 'bcrypt', hash: cheap, password: 'pw' })
    expect(await p.run({ kind: 'bcrypt', hash: cheap, password: 'pw' })).toEqual({ type: 'busy' })
    expect(await Promise.all([running, queued])).toEqual([
      { type: 'done', match: true },
      { type: 'done', match: true },
    ])
  })

  it('a hash its algorithm cannot read is a failure, not a crash', async () => {
    const p = pool({ size: 1, timeoutMs: 60_000 })
    expect(await p.run({ kind: 'argon2', hash: '$argon2id$v=19$m=nope', password: 'pw' })).toMatchObject({ type: 'failed' })
    expect(await p.run({ kind: 'bcrypt', hash: cheap, password: 'pw' })).toEqual({ type: 'done', match: true })
  })

  it('a verification the pool cannot take now is "retry later" (an outage, 503), never a wrong password', async () => {
    const parsed = parseImportedHash(cheap)
    if (!parsed.ok) throw new Error(parsed.reason)
    const params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 }
    const full = createPasswordHasher(params, undefined, {}, () => {}, pool({ size: 1, timeoutMs: 60_000, queueMax: 0 }))
    const error = await full.verify(parsed.stored, 'pw').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CapacityExceeded)
    expect(isDependencyOutage(error)).toBe(true)
    const late = createPasswordHasher(params, undefined, {}, () => {}, pool({ size: 1, timeoutMs: 1 }))
    const slowStored = parseImportedHash(slow)
    if (!slowStored.ok) throw new Error(slowStored.reason)
    await expect(late.verify(slowStored.stored, 'pw')).rejects.toBeInstanceOf(CapacityExceeded)
    // with room, the same hash verifies
    const roomy = createPasswordHasher(params, undefined, {}, () => {}, pool({ size: 1, timeoutMs: 60_000 }))
    expect(await roomy.verify(parsed.stored, 'pw')).toEqual({ ok: true, needsRehash: true })
  })
})

describe('our own Argon2id on threads of their own', () => {
  const low = { memoryCost: 8192, timeCost: 1, parallelism: 1 }
  const options = { algorithm: 2, ...low }

  it('hashes and verifies exactly as the library called directly does, both ways', async () => {
    const p = pool({ size: 1, timeoutMs: Number.POSITIVE_INFINITY })
    const secret = new TextEncoder().encode('p'.repeat(32))
    const made = await p.run({ kind: 'argon2id-hash', password: 'a long enough password', options: { ...options, secret } })
    if (made.type !== 'hashed') throw new Error(`no hash: ${JSON.stringify(made)}`)
    expect(await argon2.verify(made.hash, 'a long enough password', { secret })).toBe(true)
    expect(argon2.parseOptions(made.hash)).toMatchObject({ memoryCost: 8192, timeCost: 1, parallelism: 1 })
    const direct = await argon2.hash('a long enough password', { ...options, secret })
    expect(await p.run({ kind: 'argon2id-verify', hash: direct, password: 'a long enough password', options: { ...options, secret } })).toEqual({ type: 'done', match: true })
    expect(await p.run({ kind: 'argon2id-verify', hash: direct, password: 'a long enough password', options })).toEqual({ type: 'done', match: false })
  })

  it('answers a malformed stored hash as a non-match, not a failure', async () => {
    const p = pool({ size: 1, timeoutMs: Number.POSITIVE_INFINITY })
    expect(await p.run({ kind: 'argon2id-verify', hash: 'not-a-hash', password: 'pw', options })).toEqual({ type: 'done', match: false })
  })

  it('answers each job posted ahead to one worker its own result, in order', async () => {
    const p = pool({ size: 1, depth: 2, timeoutMs: Number.POSITIVE_INFINITY })
    const stored = await argon2.hash('right', options)
    const answers = await Promise.all(['right', 'wrong', 'right'].map((password) => p.run({ kind: 'argon2id-verify', hash: stored, password, options })))
    expect(answers.map((a) => a.type === 'done' && a.match)).toEqual([true, false, true])
    expect(p.workersStarted).toBe(1)
  })

  it('counts the jobs posted to its workers and those waiting for one, until each is answered', async () => {
    const p = pool({ size: 1, depth: 2, timeoutMs: Number.POSITIVE_INFINITY })
    const stored = await argon2.hash('right', options)
    const jobs = [1, 2, 3, 4].map(() => p.run({ kind: 'argon2id-verify', hash: stored, password: 'right', options }))
    expect([p.running, p.waiting]).toEqual([2, 2])
    await Promise.all(jobs)
    expect([p.running, p.waiting]).toEqual([0, 0])
  })

  it('starts a second worker before posting behind a busy one', async () => {
    const p = pool({ size: 2, depth: 2, timeoutMs: Number.POSITIVE_INFINITY })
    const stored = await argon2.hash('right', options)
    await Promise.all([1, 2].map(() => p.run({ kind: 'argon2id-verify', hash: stored, password: 'right', options })))
    expect(p.workersStarted).toBe(2)
  })

  it('a hash the threads could not compute is "retry later" (an outage, 503), never a wrong password', async () => {
    const lost: HashPool = { run: async () => ({ type: 'failed', message: 'the verifying worker exited' }), workersStarted: 1, running: 0, waiting: 0, close: async () => {} }
    const hasher = createPasswordHasher(low, undefined, {}, () => {}, undefined, lost)
    const stored = await argon2.hash('right', options)
    for (const attempt of [hasher.verify(stored, 'right'), hasher.hash('right'), hasher.verifyDummy('right')]) {
      const error = await attempt.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(CapacityExceeded)
      expect(isDependencyOutage(error)).toBe(true)
    }
  })
})
