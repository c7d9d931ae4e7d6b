// npm run iam -- <command>: the IAM's admin CLI (iam/cli), built with the IAM (server/cli.mjs) so
// production runs the same compiled code the server runs. Builds the IAM first when no build
// exists. IAM_OUTPUT_DIR selects another build. `npm run -s iam -- ... --json` keeps npm's banner
// off stdout.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = resolve(import.meta.dirname, '..')
const outputDir = process.env.IAM_OUTPUT_DIR ? resolve(process.env.IAM_OUTPUT_DIR) : join(root, 'iam', '.output')
const entry = join(outputDir, 'server', 'cli.mjs')
if (!existsSync(entry)) {
  const built = spawnSync('npm', ['run', 'build:iam'], { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] })
  if (built.status !== 0) process.exit(built.status ?? 1)
}
await import(pathToFileURL(entry).href)
