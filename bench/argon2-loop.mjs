/**
 * The login row's baseline: raw Argon2id verifications in a loop, in a process of their own (the
 * IAM verifies in its own process too). @node-rs/argon2 runs each verify on libuv's thread pool,
 * so `--concurrency` verifications in flight (the HTTP run's connections) are computed at most
 * UV_THREADPOOL_SIZE at a time (4 unless set): the library as it runs by default.
 * `--threads N`: on N threads of their own instead, each verifying with the library's synchronous
 * call, through the IAM's own pool (iam/features/passwords/hash-pool.ts), as the IAM does.
 * Parameters: the IAM's production defaults unless given. Prints one JSON line with the run.
 */
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { hash, verify } from '@node-rs/argon2'
import { argon2idPool } from '../iam/features/passwords/hash-pool.ts'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '50' },
    memoryCost: { type: 'string', default: '19456' },
    timeCost: { type: 'string', default: '2' },
    parallelism: { type: 'string', default: '1' },
    threads: { type: 'string' },
  },
})
const ARGON2ID = 2
const options = { algorithm: ARGON2ID, memoryCost: Number(values.memoryCost), timeCost: Number(values.timeCost), parallelism: Number(values.parallelism) }
const password = 'correct horse battery staple 42'
const stored = await hash(password, options)
const pool = values.threads === undefined ? undefined : argon2idPool(Number(values.threads))
const check = pool
  ? async () => {
      const outcome = await pool.run({ kind: 'argon2id-verify', hash: stored, password, options })
      return outcome.type === 'done' && outcome.match
    }
  : () => verify(stored, password, options)

/**
 * `concurrency` loops verifying for `seconds`; the latencies of the calls that finished within
 * them. Like autocannon in the HTTP run, which counts the answers that arrive before its end and
 * not the requests still in flight then: the up to `concurrency` verifications started before the
 * end finish after it (all of them queued behind the pool), and counting them would credit the
 * loop with work done outside the window (50 verifications in a 4 s run is about 6% of it).
 */
async function loop(seconds) {
  const latencies = []
  const end = performance.now() + seconds * 1000
  let failures = 0
  await Promise.all(
    Array.from({ length: Number(values.concurrency) }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now()
        const ok = await check()
        const t1 = performance.now()
        if (t1 > end) break
        if (!ok) failures += 1
        latencies.push(t1 - t0)
      }
    }),
  )
  return { latencies, failures }
}

await loop(Number(values.warmup))
const { latencies, failures } = await loop(Number(values.duration))
latencies.sort((a, b) => a - b)
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN
console.log(JSON.stringify({
  rps: latencies.length / Number(values.duration),
  p50: at(0.5),
  p99: at(0.99),
  requests: latencies.length,
  non2xx: failures,
  errors: 0,
}))
process.exit(0)
