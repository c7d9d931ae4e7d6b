/**
 * The threads that verify imported password hashes (imported-hashes.ts), apart from everyone
 * else's sign-in.
 *
 * Our own Argon2id runs on libuv's thread pool (@node-rs/argon2's async verify), four threads
 * shared by the whole process, as do node:crypto's async pbkdf2 and scrypt; bcryptjs runs in
 * JavaScript on the event loop. An imported hash verified in either place competes with every
 * other request: four slow guesses filled libuv's pool and every sign-in waited behind them. Here
 * each verification runs synchronously on a worker thread of its own small pool (pbkdf2Sync,
 * scryptSync, bcryptjs's compareSync, @node-rs/argon2's verifySync), so it takes one of at most
 * `size` threads and nothing else: the event loop only passes messages, libuv's pool stays for
 * our Argon2id. (Firebase's variant goes through its library, whose scrypt is libuv's; its cost is
 * the project's config, capped like scrypt's.)
 *
 * Bounded three ways: the caps of imported-hash-caps.ts (checked before a job is queued), a queue
 * of at most QUEUE_MAX jobs waiting (one more is answered `busy` at once), and a deadline per job
 * from the moment it is queued: a job still waiting is dropped, a job still running has its
 * worker terminated (a replacement starts with the next job) and answers `timeout`. A native call
 * in progress (pbkdf2Sync, Argon2) finishes before its thread can exit, which the caps bound.
 *
 * Workers start with the first job, stop after IDLE_MS without one, and never hold the process
 * open while idle.
 *
 * The worker's code is a string run with `eval: true` rather than a file: the IAM is one Nitro
 * bundle (`nitro build --dir iam`), with no file of ours at a known place beside it. It uses only
 * node built-ins and packages required from `anchor`, the address of this module (`import.meta.url`;
 * in the bundle, Nitro's rewrite points it at the output's server entry, whose node_modules holds
 * them: nitro.config.ts traces bcryptjs's CommonJS build there, which nothing imports).
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

/**
 * From queued to answered. The caps keep one verification near a second of one core; ten leaves
 * room for a busy machine and a short queue, and bounds what a sign-in waits when neither holds.
 */
export const IMPORTED_VERIFY_TIMEOUT_MS = 10_000
/** Jobs waiting for a worker; past it the answer is `busy` at once (a guesser's flood stops here). */
const QUEUE_MAX = 16
/** A worker without a job for this long is stopped: imported accounts are few and dwindle. */
const IDLE_MS = 60_000

/** One verification, with everything the worker needs (its caps already checked). */
export type HashJob =
  | { kind: 'argon2' | 'bcrypt'; hash: string; password: string }
  | { kind: 'pbkdf2'; password: string; salt: Uint8Array; expected: Uint8Array; iterations: number; digest: 'sha1' | 'sha256' | 'sha512' }
  | { kind: 'scrypt'; password: string; salt: Uint8Array; expected: Uint8Array; N: number; r: number; p: number; maxmem: number }
  | { kind: 'firebase-scrypt'; password: string; salt: string; hash: string; params: { signerKey: string; saltSeparator: string; rounds: number; memCost: number } }

/** done: verified (match or not); timeout: past the deadline; busy: the queue was full; failed: the algorithm threw (an unreadable hash). */
export type PoolOutcome = { type: 'done'; match: boolean } | { type: 'timeout' } | { type: 'busy' } | { type: 'failed'; message: string }

export interface HashPool {
  /** Verifies `job` within `timeoutMs` (the pool's own by default). Never rejects. */
  run(job: HashJob, timeoutMs?: number): Promise<PoolOutcome>
  /** workers started so far, replacements included */
  readonly workersStarted: number
  /** Answers every job not yet answered `failed` and stops the workers. */
  close(): Promise<void>
}

export interface HashPoolOptions {
  /** worker threads at most (default: one per core beyond the first, at most two, at least one) */
  size?: number
  timeoutMs?: number
  queueMax?: number
  idleMs?: number
}

// Plain CommonJS, run as it is by every Node the IAM supports; kept free of `import.meta` and
// `process.env`, which Nitro's build rewrites wherever they appear.
const WORKER_SOURCE = `
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const crypto = require('node:crypto')
const requireFrom = require('node:module').createRequire(workerData.anchor)
const loaded = new Map()
const load = (name) => {
  if (!loaded.has(name)) loaded.set(name, requireFrom(name))
  return loaded.get(name)
}
// the lengths are the stored hash's own, never a secret
const equal = (a, b) => a.length === b.length && crypto.timingSafeEqual(a, b)
const verify = async (job) => {
  switch (job.kind) {
    case 'argon2':
      return load('@node-rs/argon2').verifySync(job.hash, job.password)
    case 'bcrypt':
      return load('bcryptjs').compareSync(job.password, job.hash)
    case 'pbkdf2':
      return equal(crypto.pbkdf2Sync(job.password, job.salt, job.iterations, job.expected.length, job.digest), job.expected)
    case 'scrypt':
      return equal(crypto.scryptSync(job.password, job.salt, job.expected.length, { N: job.N, r: job.r, p: job.p, maxmem: job.maxmem }), job.expected)
    case 'firebase-scrypt': {
      const { FirebaseScrypt } = load('firebase-scrypt')
      return new FirebaseScrypt(job.params).verify(job.password, job.salt, job.hash)
    }
    default:
      throw new Error('unknown kind ' + String(job.kind))
  }
}
parentPort.on('message', (job) => {
  verify(job).then(
    (match) => parentPort.postMessage({ id: job.id, match: match === true }),
    (error) => parentPort.postMessage({ id: job.id, error: String((error && error.message) || error) }),
  )
})
`

interface Task {
  id: number
  job: HashJob
  resolve: (outcome: PoolOutcome) => void
  timer?: NodeJS.Timeout
  slot?: Slot
  answered: boolean
}

interface Slot {
  worker: Worker
  task: Task | null
  idle?: NodeJS.Timeout
}

type Reply = { id: number; match?: boolean; error?: string }

const defaultSize = () => Math.max(1, Math.min(2, availableParallelism() - 1))

export function createHashPool(options: HashPoolOptions = {}): HashPool {
  const size = options.size ?? defaultSize()
  const timeoutMs = options.timeoutMs ?? IMPORTED_VERIFY_TIMEOUT_MS
  const queueMax = options.queueMax ?? QUEUE_MAX
  const idleMs = options.idleMs ?? IDLE_MS
  const anchor = import.meta.url
  const slots = new Set<Slot>()
  const queue: Task[] = []
  let nextId = 0
  let started = 0

  const answer = (task: Task, outcome: PoolOutcome) => {
    if (task.answered) return
    task.answered = true
    clearTimeout(task.timer)
    task.resolve(outcome)
  }

  /** Takes a worker out of the pool and stops it; its job, if any, is answered by the caller. */
  const retire = (slot: Slot) => {
    slots.delete(slot)
    clearTimeout(slot.idle)
    void slot.worker.terminate()
  }

  /** A worker that ended by itself (an uncaught error): its job fails, the next job starts another. */
  const lost = (slot: Slot, message: string) => {
    if (!slots.has(slot)) return
    slots.delete(slot)
    clearTimeout(slot.idle)
    const task = slot.task
    slot.task = null
    if (task) answer(task, { type: 'failed', message })
    pump()
  }

  const start = (): Slot => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { anchor } })
    started += 1
    const slot: Slot = { worker, task: null }
    worker.on('message', (reply: Reply) => {
      const task = slot.task
      if (!task || task.id !== reply.id) return
      slot.task = null
      answer(task, reply.error === undefined ? { type: 'done', match: reply.match === true } : { type: 'failed', message: reply.error })
      rest(slot)
      pump()
    })
    worker.on('error', (error) => lost(slot, error.message))
    worker.on('exit', () => lost(slot, 'the verifying worker exited'))
    slots.add(slot)
    return slot
  }

  /** An idle worker does not keep the process alive, and stops after idleMs. */
  const rest = (slot: Slot) => {
    slot.worker.unref()
    clearTimeout(slot.idle)
    slot.idle = setTimeout(() => {
      if (!slot.task) retire(slot)
    }, idleMs).unref()
  }

  function pump(): void {
    while (queue.length > 0) {
      let slot = [...slots].find((s) => !s.task)
      if (!slot) {
        if (slots.size >= size) return
        slot = start()
      }
      const task = queue.shift()!
      clearTimeout(slot.idle)
      slot.task = task
      task.slot = slot
      slot.worker.ref()
      slot.worker.postMessage({ ...task.job, id: task.id })
    }
  }

  const deadline = (task: Task) => {
    const waiting = queue.indexOf(task)
    if (waiting >= 0) queue.splice(waiting, 1)
    else if (task.slot && task.slot.task === task) {
      task.slot.task = null
      retire(task.slot)
    }
    answer(task, { type: 'timeout' })
    pump()
  }

  return {
    run(job, ms = timeoutMs) {
      if (queue.length >= queueMax) return Promise.resolve({ type: 'busy' })
      return new Promise<PoolOutcome>((resolve) => {
        const task: Task = { id: ++nextId, job, resolve, answered: false }
        task.timer = setTimeout(() => deadline(task), ms)
        queue.push(task)
        pump()
      })
    },
    get workersStarted() {
      return started
    },
    async close() {
      for (const task of queue.splice(0)) answer(task, { type: 'failed', message: 'the pool was closed' })
      const stopping = [...slots].map((slot) => {
        const task = slot.task
        slot.task = null
        if (task) answer(task, { type: 'failed', message: 'the pool was closed' })
        slots.delete(slot)
        clearTimeout(slot.idle)
        return slot.worker.terminate()
      })
      await Promise.all(stopping)
    },
  }
}

let shared: HashPool | undefined

/** The process's one pool: every context's imported verifications share its threads. */
export const importedHashPool = (): HashPool => (shared ??= createHashPool())
