/**
 * Batching of concurrent calls that may share one round trip (see docs/performance.md): calls under one key go
 * together, at most one batch per key is in flight, and calls arriving while it is in flight wait
 * for the NEXT batch. A batch is only ever started after every call in it was made, so what it
 * reads or writes is as fresh as a call of its own would have been: sharing changes the number of
 * round trips, never an outcome.
 *
 * A batch starts at the end of the event loop turn in which its first call was made
 * (setImmediate): the requests that arrived in the same turn (several sockets read at once) go in
 * it, instead of the first going alone and the rest waiting a whole round trip for the next one.
 * A lone call waits only for the rest of that turn.
 *
 * Users: the usage count of a hot API token (count-batch.ts: one UPDATE adds n) and the
 * consumption limiter's look at its keys before a verification (features/rate-limits/limiter.ts `inspect`).
 *
 * No equivalence test of its own: tests/unit/lanes.test.ts holds the batching rules, and its
 * answers against the plain way are its user's (tests/unit/count-batch-equivalence.test.ts).
 */

interface Waiter<T, R> {
  item: T
  resolve(result: R): void
  reject(error: unknown): void
}

interface Lane<T, R> {
  busy: boolean
  queued: Array<Waiter<T, R>>
}

/**
 * `run(key, items)` answers a batch: one result per item, in their order. A rejection fails every
 * call of that batch (and only those). Returns the function to call once per item.
 */
export function createLanes<T, R>(run: (key: string, items: T[]) => Promise<R[]>): (key: string, item: T) => Promise<R> {
  const lanes = new Map<string, Lane<T, R>>()

  async function drain(key: string, lane: Lane<T, R>): Promise<void> {
    while (lane.queued.length) {
      const batch = lane.queued
      lane.queued = []
      try {
        const results = await run(
          key,
          batch.map((waiter) => waiter.item),
        )
        batch.forEach((waiter, i) => waiter.resolve(results[i]!))
      } catch (error) {
        for (const waiter of batch) waiter.reject(error)
      }
    }
    lane.busy = false
    lanes.delete(key)
  }

  return (key, item) => {
    let lane = lanes.get(key)
    if (!lane) lanes.set(key, (lane = { busy: false, queued: [] }))
    const queued = lane.queued
    const answer = new Promise<R>((resolve, reject) => queued.push({ item, resolve, reject }))
    if (!lane.busy) {
      lane.busy = true
      setImmediate(drain, key, lane)
    }
    return answer
  }
}
