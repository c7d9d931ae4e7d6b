/**
 * Counts the server processes a run starts (IAMs, gateways), so the suite's cost in starts is a
 * number, not a guess: each start helper calls countStart, which appends one line to the run's
 * file; this globalSetup (iam and gateway projects) creates that file and prints the tally once
 * the last project using it has finished. A run given TEST_SERVER_STARTS=<file> appends there and
 * leaves the file (a line per start: kind, test file), to count the starts per file.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { expect } from 'vitest'
import { ROOT } from './build'

const ENV = 'TEST_SERVER_STARTS'

/** Records one started server of `kind`, with the test file that started it (none: a globalSetup). */
export function countStart(kind: 'iam' | 'gateway'): void {
  const file = process.env[ENV]
  if (!file) return
  let testPath: string | undefined
  try {
    testPath = expect.getState().testPath
  } catch {
    // outside a test file (globalSetup): no path
  }
  appendFileSync(file, `${kind}\t${testPath ? relative(ROOT, testPath) : 'globalSetup'}\n`)
}

const state = globalThis as { __serverStartUsers?: number; __serverStartsOwned?: boolean }

export default function setup(): () => void {
  if (!process.env[ENV]) {
    state.__serverStartsOwned = true
    const dir = mkdtempSync(join(tmpdir(), 'server-starts-'))
    process.env[ENV] = join(dir, 'starts.tsv')
    writeFileSync(process.env[ENV], '')
  }
  state.__serverStartUsers = (state.__serverStartUsers ?? 0) + 1
  return () => {
    state.__serverStartUsers = (state.__serverStartUsers ?? 1) - 1
    const file = process.env[ENV]
    if (state.__serverStartUsers > 0 || !file) return
    const counts = new Map<string, number>()
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const [kind, path] = line.split('\t')
      const project = path === 'globalSetup' ? 'globalSetup' : (path?.split('/')[1] ?? '?')
      const key = `${kind} (${project})`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0)
    console.log(`server processes started: ${total}; ${[...counts].map(([key, n]) => `${key} ${n}`).join(', ')}`)
    if (!state.__serverStartsOwned) return
    rmSync(join(file, '..'), { recursive: true, force: true })
    delete process.env[ENV]
  }
}
