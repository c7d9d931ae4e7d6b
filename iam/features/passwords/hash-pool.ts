/**
 * Threads of their own for password hashes, apart from the event loop and libuv's pool: two pools
 * of one kind, each process-wide.
 *
 * **Our own Argon2id** (hasher.ts: every sign-in, sign-up and password change), one thread per core
 * (`password.argon2.threads`). @node-rs/argon2's async calls run on libuv's pool, four threads
 * unless UV_THREADPOOL_SIZE says otherwise, shared with DNS lookups and file reads: on two cores
 * four memory-hard computations at once ran ~25% fewer verifications a second than two threads
 * doing one each (bench/argon2-loop.mjs `--threads`), and during a burst of sign-ins every lookup
 * (a webhook's, the SSRF guard's) waited behind the queued hashes. Here each hash is its library's
 * synchronous call (hashSync, verifySync) on a worker thread; nothing bounds the queue or times a
 * job out, as before: the rate limits and the login admission bound what reaches it.
 *
 * **Imported hashes** (imported-hashes.ts), verified apart from everyone else's sign-in. bcryptjs
 * runs in JavaScript on the event loop and node:crypto's async pbkdf2 and scrypt on libuv's pool:
 * an imported hash verified in either place competes with every other request (four slow guesses
 * filled libuv's pool and every sign-in waited behind them). Here each verification runs
 * synchronously on a worker of its own small pool (pbkdf2Sync, scryptSync, bcryptjs's
 * compareSync, @node-rs/argon2's verifySync), so it takes one of at most `size` threads and nothing
 * else. (Firebase's variant goes through its library, whose scrypt is libuv's; its cost is the
 * project's config, capped like scrypt's.)
 *
 * The imported pool is bounded three ways: the caps of imported-hash-caps.ts (checked before a job
 * is queued), a queue of at most QUEUE_MAX jobs waiting (one more is answered `busy` at once), and
 * a deadline per job from the moment it is queued: a job still waiting is dropped, a job still
 * running has its worker terminated (a replacement starts with the next job) and answers
 * `timeout`. A native call in progress (pbkdf2Sync, Argon2) finishes before its thread can exit,
 * which the caps bound.
 *
 * Workers start with the first job, stop after `idleMs` without one, and never hold the process
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

/** The options of @node-rs/argon2's hashSync and verifySync that our own Argon2id passes. */
export interface Argon2idOptions {
  algorithm: number
  memoryCost: number
  timeCost: number
  parallelism: number
  secret?: Uint8Array
}

/**
 * One computation, with everything the worker needs (an imported hash's caps already checked).
 * `argon2id-hash` and `argon2id-verify` are our own hashes; the others imported ones.
 */
export type HashJob =
  | { kind: 'argon2id-hash'; password: string; options: Argon2idOptions }
  | { kind: 'argon2id-verify'; hash: string; password: string; options: Argon2idOptions }
  | { kind: 'argon2' | 'bcrypt'; hash: string; password: string }
  | { kind: 'pbkdf2'; password: string; salt: Uint8Array; expected: Uint8Array; iterations: number; digest: 'sha1' | 'sha256' | 'sha512' }
  | { kind: 'scrypt'; password: string; salt: Uint8Array; expected: Uint8Array; N: number; r: number; p: number; maxmem: number }
  | { kind: 'firebase-scrypt'; password: string; salt: string; hash: string; params: { signerKey: string; saltSeparator: string; rounds: number; memCost: number } }

/**
 * done: verified (match or not); hashed: `argon2id-hash`'s PHC string; timeout: past the deadline;
 * busy: the queue was full; failed: the algorithm threw (an unreadable hash), or the worker was lost.
 */
export type PoolOutcome =
  | { type: 'done'; match: boolean }
  | { type: 'hashed'; hash: string }
  | { type: 'timeout' }
  | { type: 'busy' }
  | { type: 'failed'; message: string }

export interface HashPool {
  /** Verifies `job` within `timeoutMs` (the pool's own by default). Never rejects. */
  run(job: HashJob, timeoutMs?: number): Promise<PoolOutcome>
  /** workers started so far, replacements included */
  readonly workersStarted: number
  /** jobs posted to workers and not answered yet (computing, or next in a worker's line) */
  readonly running: number
  /** jobs waiting for a worker */
  readonly waiting: number
  /** Answers every job not yet answered `failed` and stops the workers. */
  close(): Promise<void>
}

export interface HashPoolOptions {
  /** worker threads at most (default: one per core beyond the first, at most two, at least one) */
  size?: number
  /** from queued to answered; Infinity: no deadline */
  timeoutMs?: number
  /** jobs waiting at most; Infinity: no bound */
  queueMax?: number
  /** jobs posted to one worker at most, the running one included (default 1) */
  depth?: number
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
const compute = async (job) => {
  switch (job.kind) {
    case 'argon2id-hash':
      return load('@node-rs/argon2').hashSync(job.password, job.options)
    case 'argon2id-verify':
      // a malformed stored hash is a non-match, never an error (which would say the pool failed)
      try {
        return load('@node-rs/argon2').verifySync(job.hash, job.password, job.options)
      } catch {
        return false
      }
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
  compute(job).then(
    (result) => parentPort.postMessage(typeof result === 'string' ? { id: job.id, hash: result } : { id: job.id, match: result === true }),
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
  /** posted to the worker, in the order it computes them: the first is running */
  tasks: Task[]
  idle?: NodeJS.Timeout
}

type Reply = { id: number; match?: boolean; hash?: string; error?: string }

const defaultSize = () => Math.max(1, Math.min(2, availableParallelism() - 1))

export function createHashPool(options: HashPoolOptions = {}): HashPool {
  const size = options.size ?? defaultSize()
  const depth = options.depth ?? 1
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

  /** Takes a worker out of the pool and stops it; its running job is answered by the caller, the ones posted behind it wait again first. */
  const retire = (slot: Slot) => {
    slots.delete(slot)
    clearTimeout(slot.idle)
    queue.unshift(...slot.tasks.slice(1).filter((task) => !task.answered))
    slot.tasks = []
    void slot.worker.terminate()
  }

  /** A worker that ended by itself (an uncaught error): its jobs fail, the next job starts another. */
  const lost = (slot: Slot, message: string) => {
    if (!slots.has(slot)) return
    slots.delete(slot)
    clearTimeout(slot.idle)
    for (const task of slot.tasks.splice(0)) answer(task, { type: 'failed', message })
    pump()
  }

  const start = (): Slot => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { anchor } })
    started += 1
    const slot: Slot = { worker, tasks: [] }
    worker.on('message', (reply: Reply) => {
      // the worker answers in the order it was posted to
      const task = slot.tasks[0]
      if (!task || task.id !== reply.id) return
      slot.tasks.shift()
      answer(
        task,
        reply.error !== undefined ? { type: 'failed', message: reply.error } : reply.hash !== undefined ? { type: 'hashed', hash: reply.hash } : { type: 'done', match: reply.match === true },
      )
      if (slot.tasks.length === 0) rest(slot)
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
      if (slot.tasks.length === 0) retire(slot)
    }, idleMs).unref()
  }

  /**
   * The worker for the next job: an idle one, else a new one while there are fewer than `size`,
   * else the least busy with fewer than `depth` jobs posted (posted ahead, the next job starts the
   * moment the last ends, without waiting for this thread to hand it over).
   */
  const next = (): Slot | undefined => {
    let least: Slot | undefined
    for (const slot of slots) {
      if (slot.tasks.length === 0) return slot
      if (slot.tasks.length < depth && (!least || slot.tasks.length < least.tasks.length)) least = slot
    }
    return slots.size < size ? start() : least
  }

  function pump(): void {
    while (queue.length > 0) {
      const slot = next()
      if (!slot) return
      const task = queue.shift()!
      clearTimeout(slot.idle)
      slot.tasks.push(task)
      task.slot = slot
      slot.worker.ref()
      slot.worker.postMessage({ ...task.job, id: task.id })
    }
  }

  const deadline = (task: Task) => {
    const waiting = queue.indexOf(task)
    if (waiting >= 0) queue.splice(waiting, 1)
    // a running job's thread cannot be stopped otherwise (the jobs posted behind it wait again);
    // a job still posted behind another is computed when its turn comes, and its answer dropped
    else if (task.slot && task.slot.tasks[0] === task) retire(task.slot)
    answer(task, { type: 'timeout' })
    pump()
  }

  return {
    run(job, ms = timeoutMs) {
      if (queue.length >= queueMax) return Promise.resolve({ type: 'busy' })
      return new Promise<PoolOutcome>((resolve) => {
        const task: Task = { id: ++nextId, job, resolve, answered: false }
        if (Number.isFinite(ms)) task.timer = setTimeout(() => deadline(task), ms)
        queue.push(task)
        pump()
      })
    },
    get workersStarted() {
      return started
    },
    get running() {
      let posted = 0
      for (const slot of slots) posted += slot.tasks.filter((task) => !task.answered).length
      return posted
    },
    get waiting() {
      return queue.length
    },
    async close() {
      for (const task of queue.splice(0)) answer(task, { type: 'failed', message: 'the pool was closed' })
      const stopping = [...slots].map((slot) => {
        for (const task of slot.tasks.splice(0)) answer(task, { type: 'failed', message: 'the pool was closed' })
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

/** Our own hashes are the product's steady work: a worker idle this long is stopped. */
const ARGON2ID_IDLE_MS = 10 * 60_000

let argon2id: HashPool | undefined

/**
 * Threads for our own Argon2id unless configured: one per core, at most eight. Each running hash
 * holds its memory cost (19 MiB by default) and each thread a JavaScript heap of its own; libuv's
 * pool, which computed them before, ran four at most. A larger machine raises it in the config.
 */
export const DEFAULT_ARGON2ID_THREADS = Math.min(8, availableParallelism())

/**
 * The process's one pool for our own Argon2id, `threads` wide: the first caller's width holds for
 * the process, which runs one IAM.
 */
export const argon2idPool = (threads = DEFAULT_ARGON2ID_THREADS): HashPool =>
  (argon2id ??= createHashPool({ size: threads, depth: 2, timeoutMs: Number.POSITIVE_INFINITY, queueMax: Number.POSITIVE_INFINITY, idleMs: ARGON2ID_IDLE_MS }))
