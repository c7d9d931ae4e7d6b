import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { drainBackgroundWork } from '../../iam/lib/background'
import { schedulePeriodic, type PeriodicTask } from '../../iam/lib/periodic'

/** An app whose `close` hook the test fires itself. */
function fakeApp() {
  const closers: (() => void)[] = []
  return { hooks: { hook: (_name: 'close', fn: () => void) => closers.push(fn) }, close: () => closers.forEach((fn) => fn()) }
}

/** Lets the promise chain of `ready` and the setImmediate of runAfterResponse run. */
async function settle() {
  await vi.advanceTimersByTimeAsync(0)
}

describe('schedulePeriodic', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setImmediate'] })
  })
  afterEach(async () => {
    vi.useRealTimers()
    await drainBackgroundWork(1000)
  })

  it('runs once per interval and not before the first interval unless asked to run at start', async () => {
    const app = fakeApp()
    const run = vi.fn(async () => {})
    schedulePeriodic(app, Promise.resolve(), () => ({ everyMs: 100, run, onError: () => {} }))
    await settle()
    expect(run).toHaveBeenCalledTimes(0)
    await vi.advanceTimersByTimeAsync(350)
    expect(run).toHaveBeenCalledTimes(3)
    app.close()
  })

  it('runs at once when runAtStart is set, and only then when everyMs is 0', async () => {
    const app = fakeApp()
    const run = vi.fn(async () => {})
    schedulePeriodic(app, Promise.resolve(), () => ({ everyMs: 0, runAtStart: true, run, onError: () => {} }))
    await settle()
    expect(run).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(run).toHaveBeenCalledTimes(1)
    app.close()
  })

  it('never starts a run while the last one is still going', async () => {
    const app = fakeApp()
    let finish: () => void = () => {}
    const run = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)))
    schedulePeriodic(app, Promise.resolve(), () => ({ everyMs: 100, run, onError: () => {} }))
    await vi.advanceTimersByTimeAsync(550)
    expect(run).toHaveBeenCalledTimes(1)
    finish()
    await vi.advanceTimersByTimeAsync(100)
    expect(run).toHaveBeenCalledTimes(2)
    finish()
    app.close()
  })

  it('hands a failed run to onError and keeps the schedule', async () => {
    const app = fakeApp()
    const errors: string[] = []
    let calls = 0
    const task: PeriodicTask = {
      everyMs: 100,
      run: async () => {
        calls += 1
        if (calls === 1) throw new Error('first run failed')
      },
      onError: (error) => errors.push(error.message),
    }
    schedulePeriodic(app, Promise.resolve(), () => task)
    await vi.advanceTimersByTimeAsync(250)
    expect(errors).toEqual(['first run failed'])
    expect(calls).toBe(2)
    app.close()
  })

  it('stops running after the app closes, and schedules nothing when closed before ready', async () => {
    const app = fakeApp()
    const run = vi.fn(async () => {})
    schedulePeriodic(app, Promise.resolve(), () => ({ everyMs: 100, run, onError: () => {} }))
    await vi.advanceTimersByTimeAsync(150)
    app.close()
    await vi.advanceTimersByTimeAsync(1000)
    expect(run).toHaveBeenCalledTimes(1)

    const late = fakeApp()
    let ready: () => void = () => {}
    const lateRun = vi.fn(async () => {})
    schedulePeriodic(late, new Promise<void>((resolve) => (ready = resolve)), () => ({ everyMs: 100, runAtStart: true, run: lateRun, onError: () => {} }))
    late.close()
    ready()
    await vi.advanceTimersByTimeAsync(1000)
    expect(lateRun).toHaveBeenCalledTimes(0)
  })

  it('schedules nothing when setup answers undefined or the IAM never became ready', async () => {
    const app = fakeApp()
    const setup = vi.fn(() => undefined)
    schedulePeriodic(app, Promise.resolve(), setup)
    await settle()
    expect(setup).toHaveBeenCalledTimes(1)

    const failed = vi.fn(() => ({ everyMs: 100, runAtStart: true, run: async () => {}, onError: () => {} }))
    schedulePeriodic(app, Promise.reject(new Error('boot failed')), failed)
    await vi.advanceTimersByTimeAsync(500)
    expect(failed).toHaveBeenCalledTimes(0)
    app.close()
  })
})
