/**
 * Work an IAM instance does on a timer (the account purge, the webhook rounds, the SSO-required
 * snapshot): one scaffold, so each of them says only what it does and how often.
 *
 * - Nothing starts before the IAM is ready (`ready` settles after boot, plugins/00.boot.ts); a
 *   failed boot stops the process, so a rejected `ready` schedules nothing.
 * - A run goes through runAfterResponse (background.ts), so a shutdown waits for it before the
 *   pools close; a run still going when the next is due is skipped, never doubled.
 * - The timer is unref'd (it alone never keeps the process up) and cleared on the app's `close`.
 */
import { runAfterResponse } from './background'

export interface PeriodicTask {
  /** milliseconds between runs; 0 runs it only at the start when `runAtStart`, else never */
  everyMs: number
  /** one run at once instead of waiting a whole interval first */
  runAtStart?: boolean
  run: () => Promise<void>
  onError: (error: Error) => void
}

/** What `setup` can ask of the task while it runs: whether the app is closing. */
export interface PeriodicState {
  readonly closed: boolean
}

interface ClosingApp {
  hooks: { hook: (name: 'close', fn: () => void) => unknown }
}

/**
 * Schedules the task `setup` describes once `ready` resolves; `setup` may answer undefined to
 * schedule nothing (the feature is off) after doing its own one-time work.
 */
export function schedulePeriodic<T>(app: ClosingApp, ready: Promise<T>, setup: (value: T, state: PeriodicState) => PeriodicTask | undefined): void {
  let timer: NodeJS.Timeout | undefined
  let running = false
  const state = { closed: false }
  ready.then(
    (value) => {
      const task = setup(value, state)
      if (!task || state.closed) return
      const run = async () => {
        try {
          await task.run()
        } finally {
          running = false
        }
      }
      const tick = () => {
        if (running || state.closed) return
        running = true
        runAfterResponse(run, task.onError)
      }
      if (task.runAtStart) tick()
      if (task.everyMs === 0) return
      timer = setInterval(tick, task.everyMs)
      timer.unref()
    },
    () => undefined,
  )
  app.hooks.hook('close', () => {
    state.closed = true
    clearInterval(timer)
  })
}
