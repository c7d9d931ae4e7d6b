/**
 * scripts/store-bound-tests.mjs picks the unit, iam and gateway files CI runs a second time against
 * PostgreSQL + Redis: a file it misses would never meet the real stores, so the rule is checked
 * here against the files as they are.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'

const SCRIPT = join(ROOT, 'scripts/store-bound-tests.mjs')
const listed = execFileSync(process.execPath, [SCRIPT, 'tests/unit', 'tests/gateway', 'tests/iam'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean)
const testsIn = (dir: string) => readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.test.ts')).map((name) => `${dir}/${name}`)
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const declaresIndependence = (file: string) => /^\/\/ store-independent: /m.test(text(file))

/** The script run on one directory holding `files` (name -> text): its status, output and errors. */
function runOn(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'store-bound-'))
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
    const run = spawnSync(process.execPath, [SCRIPT, dir], { cwd: ROOT, encoding: 'utf8' })
    return { status: run.status, listed: run.stdout.split('\n').filter(Boolean).map((path) => path.split('/').pop()), stderr: run.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the store-bound test files', () => {
  it('include every file that names DATABASE_URL or REDIS_URL itself', () => {
    const naming = [...testsIn('tests/unit'), ...testsIn('tests/gateway')].filter((file) => /\b(DATABASE_URL|REDIS_URL)\b/.test(text(file)))
    expect(naming.length).toBeGreaterThan(0)
    for (const file of naming) expect(listed).toContain(file)
  })

  it('include every file that starts a real IAM through a test helper, at any depth, unless it declares itself store-independent', () => {
    // shared-iam.ts names neither variable: it reaches them through iam-server.ts
    expect(text('tests/helpers/shared-iam.ts')).not.toMatch(/\b(DATABASE_URL|REDIS_URL)\b/)
    const users = testsIn('tests/gateway').filter((file) => /from '\.\.\/helpers\/(iam-server|shared-iam)'/.test(text(file)) && !declaresIndependence(file))
    expect(users.length).toBeGreaterThan(0)
    for (const file of users) expect(listed).toContain(file)
  })

  it('leave out every file that declares itself store-independent with its reason, whatever it imports', () => {
    const declared = [...testsIn('tests/unit'), ...testsIn('tests/gateway'), ...testsIn('tests/iam')].filter(declaresIndependence)
    // the declared files start an IAM, so without the declaration they would be listed
    expect(declared.filter((file) => /from '\.\.\/helpers\/(iam-server|shared-iam|accounts)'/.test(text(file))).length).toBeGreaterThan(0)
    for (const file of declared) expect(listed).not.toContain(file)
  })

  it('takes a declaration only with a reason, and never from a file that names DATABASE_URL or REDIS_URL', () => {
    const starter = "import { x } from './starter'\n"
    expect(runOn({ 'starter.ts': 'export const x = process.env.DATABASE_URL\n', 'a.test.ts': starter, 'b.test.ts': `// store-independent: it reaches no store at all\n${starter}` })).toEqual({
      status: 0,
      listed: ['a.test.ts'],
      stderr: '',
    })
    const bare = runOn({ 'a.test.ts': '// store-independent:\nexport {}\n' })
    expect(bare.status).toBe(2)
    expect(bare.stderr).toContain('a.test.ts: "store-independent:" needs its reason')
    const naming = runOn({ 'a.test.ts': '// store-independent: it reaches no store at all\nconst url = process.env.REDIS_URL\n' })
    expect(naming.status).toBe(2)
    expect(naming.stderr).toContain('a.test.ts: names DATABASE_URL or REDIS_URL')
  })

  it('leave out a file that imports nothing of the repository and names neither variable', () => {
    const pure = testsIn('tests/unit').filter((file) => !/\b(DATABASE_URL|REDIS_URL)\b/.test(text(file)) && !/(from|import\()\s*'\.\.?\//.test(text(file)))
    expect(pure.length).toBeGreaterThan(0)
    for (const file of pure) expect(listed).not.toContain(file)
  })
})
