/**
 * The gateway server-route tests' harness: @nuxt/test-utils/e2e `setup()` running the gateway test
 * build (`.output-test`, built once by tests/helpers/build-gateway.ts, so `build: false`), with
 * the GATEWAY_CONFIG file this helper writes. test-utils takes one setup per file and fixes its env
 * when called, while the config needs the URLs of the IAM and providers the file starts in its own
 * `beforeAll`: so the config file's path is fixed here and its content is written by a `beforeAll`
 * registered just before test-utils' own (before hooks run in the order they are registered).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTestContext, setup, startServer, useTestContext } from '@nuxt/test-utils/e2e'
import { afterAll, beforeAll } from 'vitest'
import { GATEWAY_TEST_BUILD, ROOT } from './build'

export type GatewayConfig = Record<string, unknown>

export interface GatewayOptions {
  /** the GATEWAY_CONFIG content, read when the file's hooks run (after the `beforeAll`s registered before this call) */
  config: () => GatewayConfig
  env?: Record<string, string>
  /** 0 / absent: any free port */
  port?: number
}

export interface TestGateway {
  /** http://127.0.0.1:<port>, no trailing slash */
  readonly url: string
  /** what the gateway printed since its last start, one entry per line */
  readonly logs: string[]
  /** stops the running gateway and starts it again with another config (and env): the file's other scenarios */
  restart(config: GatewayConfig, env?: Record<string, string>): Promise<void>
}

const START_TIMEOUT_MS = 180_000

/** Call at the top level of a test file, after the `beforeAll` that starts what `config()` points at. */
export async function setupGateway(options: GatewayOptions): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'))
  let configs = 0
  const writeConfig = (config: GatewayConfig) => {
    const path = join(dir, `gateway-${configs++}.json`)
    writeFileSync(path, JSON.stringify(config))
    return path
  }
  const configPath = join(dir, 'gateway.json')
  beforeAll(() => writeFileSync(configPath, JSON.stringify(options.config())))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // NODE_ENV stays the runner's (test-utils would pass production): the gateway's dev profile, like the IAM's
  const env = { NODE_ENV: process.env.NODE_ENV ?? 'test', GATEWAY_CONFIG: configPath, ...options.env }
  await setup({
    rootDir: ROOT,
    build: false,
    server: true,
    port: options.port || undefined,
    // where startServer finds server/index.mjs without a build (the type here lacks Nitro's augmentation)
    nuxtConfig: { nitro: { output: { dir: GATEWAY_TEST_BUILD.output } } } as Record<string, unknown>,
    env,
    setupTimeout: START_TIMEOUT_MS,
    serverStartTimeout: START_TIMEOUT_MS,
  })
  // test-utils sets its context around each test only; hooks and helpers reach it through this one
  const ctx = useTestContext()
  return {
    get url() {
      return (ctx.url ?? '').replace(/\/$/, '')
    },
    get logs() {
      return ctx.serverLogs
    },
    restart(config, extraEnv = {}) {
      setTestContext(ctx)
      return startServer({ env: { ...env, ...extraEnv, GATEWAY_CONFIG: writeConfig(config) } })
    },
  }
}
