import { describe, expect, it } from 'vitest'
import { reusedFor } from '../../iam/lib/metrics'

/** A read that counts its calls and answers the call number; `fail` makes the next one reject. */
function countedRead() {
  let calls = 0
  let fail = false
  return {
    read: async () => {
      calls += 1
      if (fail) {
        fail = false
        throw new Error('database down')
      }
      return calls
    },
    calls: () => calls,
    failNext: () => (fail = true),
  }
}

describe('reusedFor: one read of the webhook queue serves the scrapes of a second', () => {
  it('answers every call within the window from one read', async () => {
    let now = 0
    const source = countedRead()
    const read = reusedFor(1_000, source.read, () => now)
    expect(await Promise.all([read(), read()])).toEqual([1, 1])
    now = 999
    expect(await read()).toBe(1)
    expect(source.calls()).toBe(1)
  })

  it('reads again once the window has passed', async () => {
    let now = 0
    const source = countedRead()
    const read = reusedFor(1_000, source.read, () => now)
    await read()
    now = 1_000
    expect(await read()).toBe(2)
    expect(source.calls()).toBe(2)
  })

  it('answers undefined for a failed read and does not keep it', async () => {
    const now = 0
    const source = countedRead()
    const read = reusedFor(1_000, source.read, () => now)
    source.failNext()
    expect(await read()).toBeUndefined()
    expect(await read()).toBe(2)
  })
})
