/**
 * `npm run bench`: builds the IAM when it has no output yet, then runs every benchmark here
 * (today: API token verification) and prints one JSON report per database kind.
 * Set DATABASE_URL to include PostgreSQL. Options pass through (--duration, --connections, --json).
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const entry = join(process.env.IAM_OUTPUT_DIR || join(ROOT, 'iam', '.output'), 'server', 'index.mjs')
if (!existsSync(entry)) {
  const built = spawnSync('npm', ['run', 'build:iam'], { cwd: ROOT, stdio: 'inherit', env: process.env })
  if (built.status !== 0) process.exit(built.status ?? 1)
}
const { main } = await import('./api-token-verify.mjs')
await main()
