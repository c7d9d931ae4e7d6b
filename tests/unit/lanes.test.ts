import { describe, expect, it } from 'vitest'
import { createLanes } from '../../iam/lib/lanes'

/** A batch runner whose batches the test answers by hand: each call of `run` is recorded with its items. */
function handAnswered() {
  const batches: Array<{ key: string; items: number[]; answer(results: string[]): void; fail(error: Error): void }> = []
  const run = (key: string, items: number[]) =>
    new Promise<string[]>((resolve, reject) => batches.push({ key, items, answer: resolve, fail: reject }))
  return { batches, call: createLanes(run) }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('lanes (calls of one key sharing one round trip)', () => {
  it('runs a lone call at once, alone', async () => {
    const { batches, call } = handAnswered()
    const answer = call('k', 1)
    expect(batches.map((b) => b.items)).toEqual([[1]])
    batches[0]!.answer(['one'])
    expect(await answer).toBe('one')
  })

  it('never lets a call share a batch started before it: calls made meanwhile go together in the next one', async () => {
    const { batches, call } = handAnswered()
    const first = call('k', 1)
    const later = [call('k', 2), call('k', 3), call('k', 4)]
    // the first batch holds only the call made before it started
    expect(batches.map((b) => b.items)).toEqual([[1]])
    batches[0]!.answer(['a'])
    expect(await first).toBe('a')
    await settle()
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]])
    batches[1]!.answer(['b2', 'b3', 'b4'])
    expect(await Promise.all(later)).toEqual(['b2', 'b3', 'b4'])
  })

  it('keeps keys apart: another key runs at once beside a busy one', () => {
    const { batches, call } = handAnswered()
    void call('k', 1)
    void call('other', 2)
    expect(batches.map((b) => [b.key, b.items])).toEqual([
      ['k', [1]],
      ['other', [2]],
    ])
  })

  it('fails only the calls of a failed batch; the next batch still runs', async () => {
    const { batches, call } = handAnswered()
    const first = call('k', 1)
    const second = call('k', 2)
    batches[0]!.fail(new Error('store down'))
    await expect(first).rejects.toThrow('store down')
    await settle()
    batches[1]!.answer(['fine'])
    expect(await second).toBe('fine')
  })

  it('starts afresh once a lane has drained', async () => {
    const { batches, call } = handAnswered()
    const first = call('k', 1)
    batches[0]!.answer(['a'])
    await first
    await settle()
    const again = call('k', 2)
    expect(batches.map((b) => b.items)).toEqual([[1], [2]])
    batches[1]!.answer(['b'])
    expect(await again).toBe('b')
  })
})
