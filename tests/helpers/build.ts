/**
 * Builds an app once per test run when its sources are newer than its output, so `npm test` works
 * on a fresh clone and stays fast on a warm one.
 */
import { spawn, spawnSync } from 'node:child_process'
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

/** What decides whether an app's build is stale: its npm script, entry file and sources. */
interface BuildRecipe {
  script: string
  entry: string
  sources: string[]
  skip: RegExp
  env: Record<string, string>
}

const iamRecipe = (build: Build): BuildRecipe => ({
  script: 'build:iam',
  entry: join(build.output, 'server', 'index.mjs'),
  sources: ['iam', 'package-lock.json'],
  skip: /\/(\.output|\.nitro)[^/]*(\/|$)|\/node_modules(\/|$)|iam\/tsconfig/,
  env: build.env,
})

const gatewayRecipe = (build: Build): BuildRecipe => ({
  script: 'build:gateway',
  entry: join(build.output, 'server', 'index.mjs'),
  sources: ['app', 'app.vue', 'error.vue', 'layouts', 'assets', 'pages', 'components', 'composables', 'server', 'public', 'iam/client', 'iam/lib/ip.ts', 'iam/lib/read-bounded.ts', 'nuxt.config.ts', 'package-lock.json'],
  skip: /\/(\.output|\.nuxt)[^/]*(\/|$)|\/node_modules(\/|$)/,
  env: build.env,
})

/** Builds the IAM (`npm run build:iam`) into `build.output` when its sources are newer. */
export function buildIamIfStale(build: Build): void {
  buildIfStale(iamRecipe(build))
}

/** Builds the gateway (`npm run build:gateway`) into `build.output` when its sources are newer. */
export function buildGatewayIfStale(build: Build): void {
  buildIfStale(gatewayRecipe(build))
}

// One build per output and process, however many setups ask for it: the globalSetup that starts
// the IAM's build can start the gateway's beside it, and the gateway's setup then awaits that one.
const started: Map<string, Promise<void>> = ((globalThis as { __iamTestBuilds?: Map<string, Promise<void>> }).__iamTestBuilds ??= new Map())

const inBackground = (recipe: BuildRecipe): Promise<void> => {
  let build = started.get(recipe.entry)
  if (!build) {
    build = isStale(recipe) ? runBuild(recipe) : Promise.resolve()
    // a caller that never awaits it must not crash the run: whoever awaits still sees the failure
    build.catch(() => undefined)
    started.set(recipe.entry, build)
  }
  return build
}

/** buildIamIfStale without blocking: the two apps' builds (one core each) can run side by side. */
export const buildIamInBackground = (build: Build): Promise<void> => inBackground(iamRecipe(build))
/** buildGatewayIfStale without blocking. */
export const buildGatewayInBackground = (build: Build): Promise<void> => inBackground(gatewayRecipe(build))

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

/** Whether `npm run <script>` must run: no entry yet, or a file under `sources` is newer (SKIP_BUILD=1: any entry will do). */
function isStale({ entry, sources, skip }: BuildRecipe): boolean {
  const outPath = isAbsolute(entry) ? entry : join(ROOT, entry)
  if (!existsSync(outPath)) return true
  if (process.env.SKIP_BUILD === '1') return false
  const built = statSync(outPath).mtimeMs
  const newest = Math.max(
    ...sources.map((source) => {
      const path = join(ROOT, source)
      if (!existsSync(path)) return 0
      return statSync(path).isDirectory() ? newestMtime(path, skip) : statSync(path).mtimeMs
    }),
  )
  return built < newest
}

/** Runs `npm run <script>` (with `env` added) unless the build is fresh. */
function buildIfStale(recipe: BuildRecipe): void {
  if (!isStale(recipe)) return
  const result = spawnSync('npm', ['run', recipe.script], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...recipe.env } })
  if (result.status !== 0) throw new Error(`npm run ${recipe.script} failed`)
}

function runBuild(recipe: BuildRecipe): Promise<void> {
  const child = spawn('npm', ['run', recipe.script], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...recipe.env } })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run ${recipe.script} failed`))))
  })
}
