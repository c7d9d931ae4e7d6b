// npm run db:migrate: builds the IAM when needed, then runs its migrations against the configured
// database (IAM_CONFIG / DATABASE_URL) and exits. Production runs this before starting instances.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const entry = 'iam/.output/server/index.mjs'
if (!existsSync(entry)) {
  const built = spawnSync('npm', ['run', 'build:iam'], { stdio: 'inherit' })
  if (built.status !== 0) process.exit(built.status ?? 1)
}
const run = spawnSync(process.execPath, [entry], {
  stdio: 'inherit',
  env: { ...process.env, IAM_TASK: 'db:migrate', PORT: process.env.PORT ?? '0' },
})
process.exit(run.status ?? 1)
