/**
 * Work that runs after its response was sent (the verification mail after a signup). It is
 * tracked so a graceful shutdown waits for it before closing the pools it uses: a SIGTERM right
 * after a signup still sends that signup's mail.
 */
const pending = new Set<Promise<void>>()

/** Starts `task` on the next turn of the event loop; its failure goes to `onError`, never unhandled. */
export function runAfterResponse(task: () => Promise<void>, onError: (error: Error) => void): void {
  const run = new Promise<void>((resolve) => setImmediate(resolve))
    .then(task)
    .catch((error: Error) => onError(error))
    .finally(() => pending.delete(run))
  pending.add(run)
}

/** Resolves when every started task settled, or after `ms`; true when none was left behind. */
export async function drainBackgroundWork(ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  // tasks started while draining (none should: the server no longer accepts requests) are awaited too
  const all = (async () => {
    while (pending.size) await Promise.allSettled([...pending])
    return true as const
  })()
  try {
    return await Promise.race([all, late])
  } finally {
    clearTimeout(timer)
  }
}
