/**
 * The worker pool that verifies imported hashes (imported-hash-pool.ts): a verification past its
 * deadline answers `timeout` and its worker is replaced, work past the queue bound is refused at
 * once, and a hash its algorithm cannot read is a failure the next job does not inherit.
 */
import bcrypt from 'bcryptjs'
import { afterAll, describe, expect, it } from 'vitest'
import { createHashPool } from '../../iam/features/passwords/imported-hash-pool'
import { createPasswordHasher } from '../../iam/features/passwords/hasher'
import { parseImportedHash } from '../../iam/features/passwords/imported-hashes'
import { CapacityExceeded, isDependencyOutage } from '../../iam/lib/outage'

describe('the worker pool that verifies imported hashes', () => {
  const pools: Array<ReturnType<typeof createHashPool>> = []
  afterAll(() => Promise.all(pools.map((pool) => pool.close())))
  const pool = (options: Parameters<typeof createHashPool>[0]) => {
    const made = createHashPool(options)
    pools.push(made)
    return made
  }
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
