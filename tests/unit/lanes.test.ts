import { describe, expect, it } from 'vitest'
import { createLanes } from '../../iam/fast/lanes'

/** A batch runner whose batches the test answers by hand: each call of `run` is recorded with its items. */
function handAnswered() {
  const batches: Array<{ key: string; items: number[]; answer(results: string[]): void; fail(error: Error): void }> = []
  const run = (key: string, items: number[]) =>
    new Promise<string[]>((resolve, reject) => batches.push({ key, items, answer: resolve, fail: reject }))
  return { batches, call: createLanes(run) }
}

/** One turn of the event loop: a batch due now has started. */
const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('lanes (calls of one key sharing one round trip)', () => {
  it('runs a lone call alone, in the same turn of the event loop', async () => {
    const { batches, call } = handAnswered()
    const answer = call('k', 1)
    await turn()
    expect(batches.map((b) => b.items)).toEqual([[1]])
    batches[0]!.answer(['one'])
    expect(await answer).toBe('one')
  })

  it('puts the calls made before a batch starts in it, in their order, each with its own result', async () => {
    const { batches, call } = handAnswered()
    const answers = [call('k', 1), call('k', 2), call('k', 3)]
    await turn()
    expect(batches.map((b) => b.items)).toEqual([[1, 2, 3]])
    batches[0]!.answer(['a', 'b', 'c'])
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c'])
  })

  it('never lets a call share a batch started before it: calls made meanwhile go together in the next one', async () => {
    const { batches, call } = handAnswered()
    const first = call('k', 1)
    await turn()
    const later = [call('k', 2), call('k', 3), call('k', 4)]
    // the batch in flight holds only the call made before it started
    expect(batches.map((b) => b.items)).toEqual([[1]])
    batches[0]!.answer(['a'])
    expect(await first).toBe('a')
    await turn()
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]])
    batches[1]!.answer(['b2', 'b3', 'b4'])
    expect(await Promise.all(later)).toEqual(['b2', 'b3', 'b4'])
  })

  it('keeps keys apart: another key runs beside a busy one', async () => {
    const { batches, call } = handAnswered()
    void call('k', 1)
    await turn()
    void call('other', 2)
    await turn()
    expect(batches.map((b) => [b.key, b.items])).toEqual([
      ['k', [1]],
      ['other', [2]],
    ])
  })

  it('fails only the calls of a failed batch; the next batch still runs', async () => {
    const { batches, call } = handAnswered()
    const first = call('k', 1)
    await turn()
    const second = call('k', 2)
    batches[0]!.fail(new Error('store down'))
    await expect(first).rejects.toThrow('store down')
    await turn()
    batches[1]!.answer(['fine'])
    expect(await second).toBe('fine')
  })

  it('starts afresh once a lane has drained', async () => {
    const { batches, call } = handAnswered()
    const first = call('k', 1)
    await turn()
    batches[0]!.answer(['a'])
    await first
    await turn()
    const again = call('k', 2)
    await turn()
    expect(batches.map((b) => b.items)).toEqual([[1], [2]])
    batches[1]!.answer(['b'])
    expect(await again).toBe('b')
  })
})
