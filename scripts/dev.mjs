// npm run dev: the IAM under `nitro dev` (port 3001) and the gateway under `nuxt dev` (port 3000),
// both reloading on change, wired together with the same generated config as `npm start`
// (.data/iam.config.json + .data/gateway.config.json, unless IAM_CONFIG / GATEWAY_CONFIG are given).
import { join } from 'node:path'
import {
  HOST,
  PORTS,
  ROOT,
  announceWhenReady,
  assertPortsFree,
  banner,
  bootstrapLines,
  checkLocalhost,
  childEnv,
  demoProvider,
  iamSettings,
  prepareConfig,
  runAll,
  startUrls,
} from './start.mjs'

const bin = (name) => join(ROOT, 'node_modules', '.bin', name)

const demo = await demoProvider()
await assertPortsFree([['iam', PORTS.iam], ['gateway', PORTS.gateway], ...(demo ? [['demo', PORTS.demo]] : [])])
await checkLocalhost()
const config = prepareConfig(demo)
runAll([
  ...(demo ? [demo.child] : []),
  {
    name: 'iam',
    args: [bin('nitro'), 'dev', '--dir', 'iam', '--port', String(PORTS.iam), '--host', HOST],
    env: childEnv({ PORT: String(PORTS.iam), IAM_CONFIG: config.iamConfig }),
  },
  {
    name: 'gateway',
    args: [bin('nuxt'), 'dev', '--port', String(PORTS.gateway), '--host', HOST],
    env: childEnv({ PORT: String(PORTS.gateway), GATEWAY_CONFIG: config.gatewayConfig }),
  },
])
// dev servers compile on the first request, so allow more time before warning
const { dataDir, issuer } = iamSettings(config.iamConfig)
await announceWhenReady(banner(config, demo, startUrls(), { issuer }), 300_000, () => bootstrapLines(dataDir))
