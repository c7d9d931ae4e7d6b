/**
 * A separate process for the cross-process limiter test (tests/iam/limiter-processes.test.ts):
 * connects to Redis, says `ready`, waits for `go` on stdin, then fires `count` concurrent consumes
 * on one key and prints the decisions' tally as one JSON line.
 * Run: node --import jiti/register tests/helpers/limiter-worker.ts <prefix> <count> <permanentAfter>
 */
import { createInterface } from 'node:readline'
import { createRateLimiter } from '../../iam/features/rate-limits/limiter'
import { createStore } from '../../iam/lib/storage'

const [prefix, count, permanentAfter] = process.argv.slice(2)
const store = createStore({ driver: 'redis', url: process.env.REDIS_URL, prefix })
const limiter = createRateLimiter(store, 'processes', { points: 50, duration: 60, blockDuration: 600 }, {
  permanentAfter: Number(permanentAfter),
})

await store.ping()
process.stdout.write('ready\n')
const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (line.trim() !== 'go') continue
  const decisions = await Promise.all(Array.from({ length: Number(count) }, () => limiter.consume('198.51.100.7')))
  const tally = { allowed: 0, numeric: 0, permanent: 0 }
  for (const d of decisions) tally[d.ok ? 'allowed' : d.permanent ? 'permanent' : 'numeric'] += 1
  process.stdout.write(`${JSON.stringify(tally)}\n`)
  break
}
lines.close()
await store.close()
