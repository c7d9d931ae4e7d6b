/**
 * A test skipped in one of CI's two passes says why in its title (tests/helpers/skip-notes.ts):
 * the note names the missing server, empty in the pass that runs it; and no `skipIf` in the suite
 * goes without such a title, so a new one cannot skip silently.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'
import { skippedWithout, skipReason, titled, type Needs } from '../helpers/skip-notes'

const hasPostgres = Boolean(process.env.DATABASE_URL)
const hasRedis = Boolean(process.env.REDIS_URL)

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })
}

describe('skip notes', () => {
  it('skip a kind exactly when this run lacks its server, and name the missing variable', () => {
    const expected: Record<Needs, boolean> = {
      postgres: !hasPostgres,
      redis: !hasRedis,
      'postgres+redis': !hasPostgres || !hasRedis,
      pglite: hasPostgres,
    }
    for (const [needs, skipped] of Object.entries(expected) as Array<[Needs, boolean]>) {
      expect({ needs, skipped: skippedWithout(needs) }).toEqual({ needs, skipped })
      const reason = skipReason(needs)
      if (!skipped) {
        expect(titled('a title', needs)).toBe('a title')
        continue
      }
      expect(titled('a title', needs)).toBe(`a title (skipped: ${reason})`)
      if (needs === 'pglite') expect(reason).toContain('DATABASE_URL set')
      if (needs !== 'pglite' && needs !== 'redis' && !hasPostgres) expect(reason).toContain('DATABASE_URL')
      if (needs !== 'pglite' && needs !== 'postgres' && !hasRedis) expect(reason).toContain('REDIS_URL')
    }
  })

  it('leave no skipIf in the suite without a reason in its title', () => {
    // the kinds of describe.each carry theirs in `$label` (tests/unit/data-layer-db.ts KINDS,
    // tests/helpers/limiter-stores.ts STORE_BACKENDS); the drills name what they need in words
    const KIND_FLAGS = /^(kindAbsent|noRedisServer|noPostgresServer|skip)\b/
    const silent: string[] = []
    let sites = 0
    for (const file of testFiles(join(ROOT, 'tests'))) {
      const text = readFileSync(file, 'utf8')
      const labelled = /describe\.each\([^)]*\)\([^,]*\$label/.test(text)
      for (const match of text.matchAll(/\.skipIf\(([^\n]*?)\)\s*(?:\.each\([^\n]*?\))?\(\s*([^\n]{0,400})/g)) {
        sites++
        const [, condition, title] = match as unknown as [string, string, string]
        const says =
          title.startsWith('titled(') ||
          (KIND_FLAGS.test(condition) && labelled) ||
          /\((needs |PostgreSQL \+ Redis only|skipped)|\$\{skipReason\}|\$\{kind === 'pglite' \? ' \(skipped/.test(title)
        if (!says) silent.push(`${relative(ROOT, file)}: ${match[0].slice(0, 120)}`)
      }
    }
    expect(sites).toBeGreaterThan(50)
    expect(silent).toEqual([])
  })
})
