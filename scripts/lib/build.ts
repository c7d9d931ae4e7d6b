/**
 * The one `buildIfStale`: `npm start`, the test helpers (tests/helpers/build.ts)
 * and the benchmark build an app only when a source file is newer than its output's entry, so a
 * fresh clone works and a warm one starts in seconds. Plain TypeScript with erasable syntax only:
 * Node runs it as it is.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dirname, '..', '..')

export interface App {
  /** the npm script that builds it */
  script: string
  /** files and directories (from ROOT) whose change makes the output stale */
  sources: string[]
  /** paths under the sources that are not sources (outputs, build dirs, dependencies) */
  skip: RegExp
}

export const IAM_APP: App = {
  script: 'build:iam',
  sources: ['iam', 'shared', 'package-lock.json'],
  // [^/]*: the test builds' dirs (.output-test, .nitro-test) too
  skip: /\/(\.output|\.nitro)[^/]*(\/|$)|\/node_modules(\/|$)|iam\/tsconfig/,
}

export const GATEWAY_APP: App = {
  script: 'build:gateway',
  sources: [
    'app', 'app.vue', 'error.vue', 'pages', 'components', 'composables', 'layouts', 'middleware', 'plugins', 'assets',
    'server', 'public', 'iam/client', 'iam/contract', 'shared', 'i18n', 'nuxt.config.ts', 'package-lock.json',
  ],
  skip: /\/(\.output|\.nuxt)[^/]*(\/|$)|\/node_modules(\/|$)/,
}

/**
 * The example app that extends the gateway as a layer (examples/nuxt-app): built by the browser
 * test that signs in through it; stale when the gateway or the example changes.
 */
export const EXAMPLE_APP: App = {
  script: 'build:example',
  sources: [...GATEWAY_APP.sources, 'examples/nuxt-app'],
  skip: GATEWAY_APP.skip,
}

/** The server entry of a build output directory (absolute, or from ROOT). */
export const entryOf = (output: string): string => resolve(ROOT, output, 'server', 'index.mjs')

function newestMtime(path: string, skip: RegExp): number {
  if (!existsSync(path) || skip.test(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = 0
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name), skip))
  return newest
}

/** True when `output`'s entry exists and is at least as new as every source of `app`. */
export function isFresh(app: App, output: string): boolean {
  const entry = entryOf(output)
  if (!existsSync(entry)) return false
  const newest = Math.max(...app.sources.map((source) => newestMtime(join(ROOT, source), app.skip)))
  return statSync(entry).mtimeMs >= newest
}

/** Whether `output` must be built: no entry yet, or (unless SKIP_BUILD=1) a source newer than it. */
export function needsBuild(app: App, output: string): boolean {
  if (!existsSync(entryOf(output))) return true
  return process.env.SKIP_BUILD !== '1' && !isFresh(app, output)
}

const announce = (app: App, output: string): void => {
  const where = isAbsolute(output) ? output : join(ROOT, output)
  console.log(`> npm run ${app.script} (${where} is missing or older than its sources)`)
}

/**
 * Runs `npm run <app.script>` (with `env` added) unless `output` is fresh. SKIP_BUILD=1 takes any
 * existing output as fresh. Throws when the build fails.
 */
export function buildIfStale(app: App, output: string, env: Record<string, string> = {}): void {
  if (!needsBuild(app, output)) return
  announce(app, output)
  const result = spawnSync('npm', ['run', app.script], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } })
  if (result.status !== 0) throw new Error(`npm run ${app.script} failed`)
}

/** buildIfStale without blocking, so two apps' builds (one core each) can run side by side. */
export function buildIfStaleAsync(app: App, output: string, env: Record<string, string> = {}): Promise<void> {
  if (!needsBuild(app, output)) return Promise.resolve()
  announce(app, output)
  const child = spawn('npm', ['run', app.script], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } })
  return new Promise((done, fail) => {
    child.once('error', fail)
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`npm run ${app.script} failed`))))
  })
}
