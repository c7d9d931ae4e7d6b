/**
 * scripts/store-bound-tests.mjs picks the unit and gateway files CI runs a second time against
 * PostgreSQL + Redis: a file it misses would never meet the real stores, so the rule is checked
 * here against the files as they are.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'

const listed = execFileSync(process.execPath, [join(ROOT, 'scripts/store-bound-tests.mjs'), 'tests/unit', 'tests/gateway'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean)
const testsIn = (dir: string) => readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.test.ts')).map((name) => `${dir}/${name}`)
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8')

describe('the store-bound test files', () => {
  it('include every file that names DATABASE_URL or REDIS_URL itself', () => {
    const naming = [...testsIn('tests/unit'), ...testsIn('tests/gateway')].filter((file) => /\b(DATABASE_URL|REDIS_URL)\b/.test(text(file)))
    expect(naming.length).toBeGreaterThan(0)
    for (const file of naming) expect(listed).toContain(file)
  })

  it('include every file that starts a real IAM through a test helper, at any depth', () => {
    // shared-iam.ts names neither variable: it reaches them through iam-server.ts
    expect(text('tests/helpers/shared-iam.ts')).not.toMatch(/\b(DATABASE_URL|REDIS_URL)\b/)
    const users = testsIn('tests/gateway').filter((file) => /from '\.\.\/helpers\/(iam-server|shared-iam)'/.test(text(file)))
    expect(users.length).toBeGreaterThan(0)
    for (const file of users) expect(listed).toContain(file)
  })

  it('leave out a file that imports nothing of the repository and names neither variable', () => {
    const pure = testsIn('tests/unit').filter((file) => !/\b(DATABASE_URL|REDIS_URL)\b/.test(text(file)) && !/(from|import\()\s*'\.\.?\//.test(text(file)))
    expect(pure.length).toBeGreaterThan(0)
    for (const file of pure) expect(listed).not.toContain(file)
  })
})
