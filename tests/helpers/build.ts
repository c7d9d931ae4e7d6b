/**
 * Builds an app once per test run when its sources are newer than its output, so `npm test` works
 * on a fresh clone and stays fast on a warm one (the rule itself: scripts/lib/build.ts, shared with
 * `npm start` and the benchmark).
 */
import { join } from 'node:path'
import { buildIfStale, buildIfStaleAsync, GATEWAY_APP, IAM_APP, ROOT, type App } from '../../scripts/lib/build.ts'

export { ROOT }

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
  buildIfStale(IAM_APP, build.output, build.env)
}

/** Builds the gateway (`npm run build:gateway`) into `build.output` when its sources are newer. */
export function buildGatewayIfStale(build: Build): void {
  buildIfStale(GATEWAY_APP, build.output, build.env)
}

// One build per output and process, however many setups ask for it: the globalSetup that starts
// the IAM's build can start the gateway's beside it, and the gateway's setup then awaits that one.
const started: Map<string, Promise<void>> = ((globalThis as { __iamTestBuilds?: Map<string, Promise<void>> }).__iamTestBuilds ??= new Map())

const inBackground = (app: App, build: Build): Promise<void> => {
  let running = started.get(build.output)
  if (!running) {
    running = buildIfStaleAsync(app, build.output, build.env)
    // a caller that never awaits it must not crash the run: whoever awaits still sees the failure
    running.catch(() => undefined)
    started.set(build.output, running)
  }
  return running
}

/** buildIamIfStale without blocking: the two apps' builds (one core each) can run side by side. */
export const buildIamInBackground = (build: Build): Promise<void> => inBackground(IAM_APP, build)
/** buildGatewayIfStale without blocking. */
export const buildGatewayInBackground = (build: Build): Promise<void> => inBackground(GATEWAY_APP, build)
