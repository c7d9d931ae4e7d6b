// Two IAM-like processes share one Redis: the limiter must stay exact across them, since a limit
// that each instance enforces on its own multiplies by the number of instances.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'
import { dropStore, REDIS_URL, redisStore } from '../helpers/limiter-stores'
import { skippedWithout, titled } from '../helpers/skip-notes'

type Tally = { allowed: number; numeric: number; permanent: number }

const prefixes: string[] = []
afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => dropStore(redisStore(prefix))))
})

/** Starts a worker; resolves with a function that sends `go` and resolves with its tally. */
async function startWorker(prefix: string, count: number, permanentAfter: number): Promise<() => Promise<Tally>> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'jiti/register', 'tests/helpers/limiter-worker.ts', prefix, String(count), String(permanentAfter)],
    { cwd: ROOT, env: { ...process.env, REDIS_URL }, stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const next = async () => {
    const { value, done } = await lines.next()
    if (done) throw new Error('limiter worker exited early')
    return value as string
  }
  expect(await next()).toBe('ready')
  return async () => {
    child.stdin!.write('go\n')
    const tally = JSON.parse(await next()) as Tally
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)))
    return tally
  }
}

// Needs a Redis server shared by both processes: only when REDIS_URL is set.
describe.skipIf(skippedWithout('redis'))(titled('rate limiter across two processes sharing one Redis', 'redis'), () => {
  it('allows exactly 50 of 2 x 250 concurrent consumes, one numeric rejection, the rest permanent', async () => {
    const prefix = `t${randomBytes(5).toString('hex')}`
    prefixes.push(prefix)
    const workers = await Promise.all([startWorker(prefix, 250, 1), startWorker(prefix, 250, 1)])
    const [a, b] = await Promise.all(workers.map((go) => go()))
    expect(a.allowed + b.allowed).toBe(50)
    expect(a.numeric + b.numeric).toBe(1)
    expect(a.permanent + b.permanent).toBe(449)
  }, 120_000) // two Node processes transpiling TypeScript on a shared two-core machine

  it('gives an operation limiter exactly two numeric rejections across processes before the permanent block', async () => {
    const prefix = `t${randomBytes(5).toString('hex')}`
    prefixes.push(prefix)
    const workers = await Promise.all([startWorker(prefix, 250, 2), startWorker(prefix, 250, 2)])
    const [a, b] = await Promise.all(workers.map((go) => go()))
    expect(a.allowed + b.allowed).toBe(50)
    expect(a.numeric + b.numeric).toBe(2)
    expect(a.permanent + b.permanent).toBe(448)
  }, 120_000)
})
