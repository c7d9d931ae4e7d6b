/**
 * Builds an app once per test run when its sources are newer than its output, so `npm test` works
 * on a fresh clone and stays fast on a warm one.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')

function newestMtime(dir: string, skip: RegExp): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (skip.test(path)) continue
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, skip))
    else newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** Runs `npm run <script>` unless `output` is newer than every file under `sources`. */
export function buildIfStale(script: string, output: string, sources: string[], skip: RegExp): void {
  const outPath = isAbsolute(output) ? output : join(ROOT, output)
  if (process.env.SKIP_BUILD !== '1' && existsSync(outPath)) {
    const built = statSync(outPath).mtimeMs
    const newest = Math.max(
      ...sources.map((source) => {
        const path = join(ROOT, source)
        if (!existsSync(path)) return 0
        return statSync(path).isDirectory() ? newestMtime(path, skip) : statSync(path).mtimeMs
      }),
    )
    if (built >= newest) return
  } else if (process.env.SKIP_BUILD === '1' && existsSync(outPath)) {
    return
  }
  const result = spawnSync('npm', ['run', script], { cwd: ROOT, stdio: 'inherit', env: process.env })
  if (result.status !== 0) throw new Error(`npm run ${script} failed`)
}
