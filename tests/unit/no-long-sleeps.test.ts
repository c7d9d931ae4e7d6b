/**
 * The suite waits on no wall clock longer than 100 ms: expiry tests move the servers'
 * clocks (tests/helpers/clock.ts), everything else waits on an event or polls a condition briefly
 * (tests/helpers/wait.ts). This scans tests/** for a setTimeout, sleep, delay or waitForTimeout whose
 * duration is over 100 ms, written as literals and constants of the same file (GRACE_MS + 300).
 * Timers that only guard against a hang (they reject or kill, nobody waits them out) are listed in
 * HANG_GUARDS, each with its reason; an entry that no longer matches anything fails too.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const LIMIT_MS = 100

/** file (from the repository root) and a piece of the offending line; why it is no wait */
const HANG_GUARDS: Array<{ file: string; line: string; why: string }> = [
  { file: 'tests/gateway/oauth-demo-provider.test.ts', line: 'setTimeout(() => reject(', why: 'fails a demo provider that never starts' },
]

const CALL = /\b(setTimeout|sleep|delay|waitForTimeout)\s*\(/g

/** The ms of each timer call in `source` over LIMIT_MS, with its line. */
export function longWaits(source: string): Array<{ line: string; ms: number }> {
  const constants = new Map<string, number>()
  for (const m of source.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*([\d_]+)\b/g)) constants.set(m[1]!, Number(m[2]!.replaceAll('_', '')))
  const found: Array<{ line: string; ms: number }> = []
  for (const m of source.matchAll(CALL)) {
    const args = argumentsAt(source, m.index + m[0].length)
    // setTimeout(fn, ms): the duration is the last argument; sleep(ms) and friends: the first
    const duration = (m[1] === 'setTimeout' ? args.at(-1) : args[0])?.trim() ?? ''
    const ms = valueOf(duration, constants)
    if (ms !== undefined && ms > LIMIT_MS) {
      const start = source.lastIndexOf('\n', m.index) + 1
      const end = source.indexOf('\n', m.index)
      found.push({ line: source.slice(start, end === -1 ? undefined : end).trim(), ms })
    }
  }
  return found
}

/** A duration written as literals and same-file constants joined by `+` (GRACE_MS + 300); else undefined. */
function valueOf(expression: string, constants: Map<string, number>): number | undefined {
  let sum = 0
  for (const term of expression.split('+').map((t) => t.trim())) {
    const value = /^[\d_]+$/.test(term) ? Number(term.replaceAll('_', '')) : constants.get(term)
    if (value === undefined) return undefined
    sum += value
  }
  return sum
}

/** The top-level arguments of a call whose `(` ends just before `from`. */
function argumentsAt(source: string, from: number): string[] {
  const args: string[] = []
  let depth = 0
  let current = ''
  for (let i = from; i < source.length; i++) {
    const c = source[i]!
    if (depth === 0 && c === ')') break
    if ('([{'.includes(c)) depth++
    if (')]}'.includes(c)) depth--
    if (depth === 0 && c === ',') {
      args.push(current)
      current = ''
    } else current += c
  }
  args.push(current)
  return args
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : []
  })
}

describe('waits in the test suite', () => {
  it('finds a literal or constant timer over 100 ms, and none at or under it', () => {
    const sample = [
      'const GRACE_MS = 4000',
      'await new Promise((r) => setTimeout(r, 2500))',
      'await new Promise((resolve) => setTimeout(resolve, GRACE_MS))',
      'await sleep(1_100)',
      'await sleep(GRACE_MS + 300)',
      'await page.waitForTimeout(500)',
      'await new Promise((r) => setTimeout(r, 100))',
      'setTimeout(() => { done() }, 20)',
    ].join('\n')
    expect(longWaits(sample).map((w) => w.ms)).toEqual([2500, 4000, 1100, 4300, 500])
  })

  it('has no wall-clock wait over 100 ms under tests/ except the listed hang guards', () => {
    const self = relative(ROOT, import.meta.filename)
    const offenders: string[] = []
    const usedGuards = new Set<string>()
    for (const path of testFiles(join(ROOT, 'tests'))) {
      const file = relative(ROOT, path)
      if (file === self) continue
      for (const wait of longWaits(readFileSync(path, 'utf8'))) {
        const guard = HANG_GUARDS.find((g) => g.file === file && wait.line.includes(g.line))
        if (guard) usedGuards.add(`${guard.file}: ${guard.line}`)
        else offenders.push(`${file}: ${wait.line} (${wait.ms} ms)`)
      }
    }
    expect(offenders).toEqual([])
    expect(HANG_GUARDS.map((g) => `${g.file}: ${g.line}`).filter((g) => !usedGuards.has(g))).toEqual([])
  })
})
