/**
 * No test code in production: the test routes (iam/test-build) and the gateway's test
 * OAuth callbacks (server/test-build) are compiled only into the test builds the suite runs
 * (IAM_TEST_BUILD / GATEWAY_TEST_BUILD). This builds what `npm run build` makes, when stale, and
 * greps it; the test builds are grepped too, so a marker that stopped matching cannot pass silently.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  buildGatewayInBackground,
  buildIamInBackground,
  GATEWAY_PRODUCTION_BUILD,
  GATEWAY_TEST_BUILD,
  IAM_PRODUCTION_BUILD,
  IAM_TEST_BUILD,
} from '../helpers/build'

const IAM_MARKERS = ['/__test/', 'IAM_TEST_ROUTES', 'test-build/', 'testClockNow']
const GATEWAY_MARKERS = ['GATEWAY_TEST_OAUTH_CALLBACKS', 'registerTestCallbacks', 'test-build/', 'GATEWAY_TEST_CLOCK']

/** Each marker and the first file of `dir` holding it; third-party packages (node_modules) are not ours. */
function findMarkers(dir: string, markers: string[]): Map<string, string> {
  const found = new Map<string, string>()
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(full)
        continue
      }
      const text = readFileSync(full, 'latin1')
      for (const marker of markers) if (!found.has(marker) && text.includes(marker)) found.set(marker, full)
    }
  }
  walk(dir)
  return found
}

describe('production builds', () => {
  // Both builds run only when their sources are newer than the output (seconds each otherwise).
  // The two apps build side by side (about one core each); one app's two builds one after the other.
  beforeAll(async () => {
    await Promise.all([
      buildIamInBackground(IAM_PRODUCTION_BUILD).then(() => buildIamInBackground(IAM_TEST_BUILD)),
      buildGatewayInBackground(GATEWAY_PRODUCTION_BUILD).then(() => buildGatewayInBackground(GATEWAY_TEST_BUILD)),
    ])
  }, 300_000)

  it('the IAM bundle (npm run build:iam) holds no test route or test switch', () => {
    expect(Object.fromEntries(findMarkers(IAM_PRODUCTION_BUILD.output, IAM_MARKERS))).toEqual({})
  })
  it('the gateway bundle (npm run build:gateway) holds no test OAuth callback or test switch', () => {
    expect(Object.fromEntries(findMarkers(GATEWAY_PRODUCTION_BUILD.output, GATEWAY_MARKERS))).toEqual({})
  })
  // The admin CLI enters through the chunk of the code both entries share (iam/nitro.config.ts): if
  // that chunk imports the Nitro runtime's chunk, which imports it back, the runtime's top level runs
  // before the shared bindings it reads exist and every command dies on load.
  it('the admin CLI of each IAM build loads and prints its usage', () => {
    for (const build of [IAM_PRODUCTION_BUILD, IAM_TEST_BUILD]) {
      const run = spawnSync(process.execPath, [join(build.output, 'server', 'cli.mjs'), '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
      expect({ build: build.output, status: run.status, stderr: run.stderr }).toEqual({ build: build.output, status: 0, stderr: '' })
      expect(run.stdout).toContain('keys:rotate')
    }
  })
  it('the test builds the suite runs hold every marker grepped for', () => {
    expect([...findMarkers(IAM_TEST_BUILD.output, IAM_MARKERS).keys()].sort()).toEqual([...IAM_MARKERS].sort())
    expect([...findMarkers(GATEWAY_TEST_BUILD.output, GATEWAY_MARKERS).keys()].sort()).toEqual([...GATEWAY_MARKERS].sort())
  })
})
