/**
 * vitest globalSetup (first in each project that starts processes): turns on Node's on-disk
 * compile cache (NODE_COMPILE_CACHE) for every process the run starts after it: the test workers,
 * the IAMs and gateways they start, the admin CLI runs. Without it each of those parses and
 * compiles the same bundles again (vitest's, the IAM's ~1 MB, the gateway's): with the cache a
 * process loads V8's code from the previous one. Node checks each entry against the source's hash, so
 * a rebuilt bundle is compiled afresh, never run from a stale entry. Kept per checkout in the
 * temp dir; a run given NODE_COMPILE_CACHE keeps its own.
 */
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './build'

export default function setup(): void {
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), `node-compile-cache-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`)
}
