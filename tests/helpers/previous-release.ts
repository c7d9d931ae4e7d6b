/**
 * The previous release for the rolling-upgrade test (tests/iam/rolling-upgrade.test.ts): the last
 * commit before the newest migration file was added, on the first-parent line (the main line, not
 * the side branch a merge brought in), and its IAM built once per commit.
 *
 * The build is `npm run build:iam` with the test suite's settings (tests/helpers/build.ts), run in
 * a `git archive` of that commit whose node_modules is this checkout's: a Nitro output carries its
 * runtime dependencies in server/node_modules, so it runs without the sources it came from and is
 * kept under node_modules/.cache by commit hash (a commit never changes, so neither does its build).
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './build'

export const MIGRATIONS_DIR = 'iam/db/migrations'
const CACHE = join(ROOT, 'node_modules', '.cache', 'iam-previous-release')

export type PreviousRelease =
  | { found: true; commit: string; newestMigration: string }
  | { found: false; reason: string }

const git = (...args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
const gitOk = (...args: string[]): boolean => {
  try {
    git(...args)
    return true
  } catch {
    return false
  }
}

/**
 * Finds the previous release of `newestMigration` (a file name in iam/db/migrations, without .ts).
 * A migration not committed yet is new against HEAD, so HEAD is then the previous release.
 */
export function findPreviousRelease(newestMigration: string): PreviousRelease {
  if (!gitOk('rev-parse', '--verify', 'HEAD')) return { found: false, reason: 'not a git checkout with commits' }
  const file = `${MIGRATIONS_DIR}/${newestMigration}.ts`
  // --first-parent diffs a merge against its first parent: the merge that brought the file in is
  // where the main line gained it, and that merge's first parent is the release without it
  const added = git('log', '--first-parent', '--diff-filter=A', '--format=%H', 'HEAD', '--', file).split('\n').filter(Boolean)[0]
  if (!added) {
    if (!gitOk('ls-files', '--error-unmatch', file)) return { found: true, commit: git('rev-parse', 'HEAD'), newestMigration }
    return { found: false, reason: `the history does not reach the commit that added ${file} (a shallow clone? fetch with full history)` }
  }
  if (!gitOk('rev-parse', '--verify', '--quiet', `${added}^1^{commit}`)) {
    return { found: false, reason: `the parent of ${added.slice(0, 12)} (which added ${file}) is not in this clone (a shallow clone? fetch with full history)` }
  }
  return { found: true, commit: git('rev-parse', `${added}^1`), newestMigration }
}

/** The output dir of `commit`'s IAM test build, built now unless the cache has it; `ms` is the time the build took (0 when cached). */
export async function buildPreviousRelease(commit: string): Promise<{ output: string; ms: number }> {
  const output = join(CACHE, commit)
  if (existsSync(join(output, 'server', 'index.mjs'))) return { output, ms: 0 }
  const started = Date.now()
  mkdirSync(CACHE, { recursive: true })
  const src = mkdtempSync(join(tmpdir(), 'iam-previous-src-'))
  // built beside the cache entry, renamed into it when done: a run stopped half way, or another
  // checkout building the same commit at once, never leaves a partial build under the commit's name
  const partial = `${output}.partial-${process.pid}`
  try {
    execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "$1"`, 'sh', src], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(src, 'node_modules'))
    const { IAM_OUTPUT_DIR: _o, IAM_BUILD_DIR: _b, ...parentEnv } = process.env
    const child = spawn('npm', ['run', 'build:iam'], {
      cwd: src,
      env: { ...parentEnv, IAM_TEST_BUILD: '1', IAM_OUTPUT_DIR: partial, IAM_BUILD_DIR: '.nitro-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let log = ''
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    if (code !== 0) throw new Error(`npm run build:iam of ${commit} exited with ${code}:\n${log.slice(-4000)}`)
    rmSync(output, { recursive: true, force: true })
    renameSync(partial, output)
    // older commits' builds (about 40 MB each) go; three are kept for checkouts on other branches
    const builds = readdirSync(CACHE).filter((name) => !name.includes('.partial-')).map((name) => ({ name, at: statSync(join(CACHE, name)).mtimeMs }))
    for (const { name } of builds.sort((a, b) => b.at - a.at).slice(3)) rmSync(join(CACHE, name), { recursive: true, force: true })
  } finally {
    rmSync(partial, { recursive: true, force: true })
    rmSync(src, { recursive: true, force: true })
  }
  return { output, ms: Date.now() - started }
}
