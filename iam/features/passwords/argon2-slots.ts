/**
 * How many Argon2 computations run at once in this process. @node-rs/argon2 computes on libuv's
 * thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise); with more computations than
 * cores, each core time-slices two of them and their memory (memoryCost each, 19 MiB by default)
 * competes for the caches: on the 2-core box a verify cost 12-25% more CPU with 4 at a time than
 * with 2 (docs/performance-writes.md, "login"). And every other job of the pool (WebCrypto's
 * signature of the login's access token, fs, dns) queued behind all the waiting verifies: a login
 * waited in the pool's queue twice. So at most one verify or hash per core is handed to the pool,
 * the rest wait here in arrival order, and the pool's other threads stay free for those jobs.
 *
 * One count per process (the pool is per process), whatever the number of hashers. The bench's raw
 * Argon2 loop (bench/argon2-loop.mjs) uses this module too, so its baseline runs the same way.
 * Plain TypeScript that Node runs with its type stripping (no enums, no parameter properties).
 */
import { availableParallelism } from 'node:os'

/** min(cores, libuv's pool size): more than the pool size would queue in the pool anyway. */
export function argon2SlotCount(env: Record<string, string | undefined> = process.env, cores = availableParallelism()): number {
  const pool = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10)
  const poolSize = Number.isInteger(pool) && pool > 0 ? pool : 4
  return Math.max(1, Math.min(cores, poolSize))
}

/** Runs tasks at most `limit` at a time, the others in arrival order; a failed task frees its slot. */
export function createSlots(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (task) => {
    if (running < limit) running += 1
    // a finishing task hands its slot straight to the next waiter (`running` stays as it is)
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running -= 1
    }
  }
}

/** The process's Argon2 slots: every hash and verify goes through it. */
export const withArgon2Slot = createSlots(argon2SlotCount())
