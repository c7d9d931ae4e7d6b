// npm run db:migrate: builds the IAM when needed, then runs its migrations against the configured
// database (IAM_CONFIG / DATABASE_URL) and exits with the IAM's status (0 = applied or nothing to
// do). Production runs this before starting instances. IAM_OUTPUT_DIR selects another build.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const outputDir = process.env.IAM_OUTPUT_DIR ? resolve(process.env.IAM_OUTPUT_DIR) : join(root, 'iam', '.output')
const entry = join(outputDir, 'server', 'index.mjs')
if (!existsSync(entry)) {
  const built = spawnSync('npm', ['run', 'build:iam'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) process.exit(built.status ?? 1)
}
const run = spawnSync(process.execPath, [entry], {
  stdio: 'inherit',
  // PORT 0: the server module may bind before the task exits; never on a port in use
  env: { ...process.env, IAM_TASK: 'db:migrate', PORT: '0' },
})
if (run.error) {
  process.stderr.write(`db:migrate: ${run.error.message}\n`)
  process.exit(1)
}
process.exit(run.status ?? 1)
