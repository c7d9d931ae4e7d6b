/**
 * Builds an app once per test run when its sources are newer than its output, so `npm test` works
 * on a fresh clone and stays fast on a warm one.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')

// The suite runs test builds (IAM_TEST_BUILD / GATEWAY_TEST_BUILD: test routes and callbacks
// compiled in), in their own output and build dirs so `npm run build`'s production output stays
// clean. IAM_OUTPUT_DIR / GATEWAY_OUTPUT_DIR override where they go (absolute paths).
export interface Build {
  /** the output dir (absolute) */
  output: string
  /** added to `npm run build:*`'s environment */
  env: Record<string, string>
}
const iamTestOutput = process.env.IAM_OUTPUT_DIR || join(ROOT, 'iam', '.output-test')
const gatewayTestOutput = process.env.GATEWAY_OUTPUT_DIR || join(ROOT, '.output-test')
export const IAM_TEST_BUILD: Build = {
  output: iamTestOutput,
  env: { IAM_TEST_BUILD: '1', IAM_OUTPUT_DIR: iamTestOutput, IAM_BUILD_DIR: process.env.IAM_BUILD_DIR || '.nitro-test' },
}
export const GATEWAY_TEST_BUILD: Build = {
  output: gatewayTestOutput,
  env: { GATEWAY_TEST_BUILD: '1', GATEWAY_OUTPUT_DIR: gatewayTestOutput, GATEWAY_BUILD_DIR: process.env.GATEWAY_BUILD_DIR || '.nuxt-test' },
}
/** What `npm run build` makes (and `npm start` runs): the defaults, whatever this shell has set. */
export const IAM_PRODUCTION_BUILD: Build = {
  output: join(ROOT, 'iam', '.output'),
  env: { IAM_TEST_BUILD: '', IAM_OUTPUT_DIR: join(ROOT, 'iam', '.output'), IAM_BUILD_DIR: '.nitro' },
}
export const GATEWAY_PRODUCTION_BUILD: Build = {
  output: join(ROOT, '.output'),
  env: { GATEWAY_TEST_BUILD: '', GATEWAY_OUTPUT_DIR: join(ROOT, '.output'), GATEWAY_BUILD_DIR: '.nuxt' },
}

/** Builds the IAM (`npm run build:iam`) into `build.output` when its sources are newer. */
export function buildIamIfStale(build: Build): void {
  buildIfStale('build:iam', join(build.output, 'server', 'index.mjs'), ['iam', 'package-lock.json'], /\/(\.output|\.nitro)[^/]*(\/|$)|\/node_modules(\/|$)|iam\/tsconfig/, build.env)
}

/** Builds the gateway (`npm run build:gateway`) into `build.output` when its sources are newer. */
export function buildGatewayIfStale(build: Build): void {
  buildIfStale(
    'build:gateway',
    join(build.output, 'server', 'index.mjs'),
    ['app', 'app.vue', 'error.vue', 'layouts', 'assets', 'pages', 'components', 'composables', 'server', 'public', 'iam/client', 'iam/lib/ip.ts', 'iam/lib/read-bounded.ts', 'nuxt.config.ts', 'package-lock.json'],
    /\/(\.output|\.nuxt)[^/]*(\/|$)|\/node_modules(\/|$)/,
    build.env,
  )
}

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

/** Runs `npm run <script>` (with `env` added) unless `output` is newer than every file under `sources`. */
function buildIfStale(script: string, output: string, sources: string[], skip: RegExp, env: Record<string, string> = {}): void {
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
  const result = spawnSync('npm', ['run', script], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } })
  if (result.status !== 0) throw new Error(`npm run ${script} failed`)
}
