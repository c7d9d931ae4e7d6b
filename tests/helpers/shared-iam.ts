/**
 * One IAM for every test file of a run that needs no config of its own (vitest globalSetup of the
 * iam project): starting an IAM (PGlite boot, migrations) costs seconds, so those files share it
 * instead of starting one each. Tests on it stay independent: fresh users, emails and devices per
 * test (signupUser, uniqueEmail). Its test routes are on (request rules, errors), but nobody moves
 * its clock: a file that moves time (tests/helpers/clock.ts) starts its own IAM.
 *
 * Its output goes to a file, so the files sharing it can read its log lines (`logs`) from their
 * own workers; those lines hold every file's requests, so match them by request id or content.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import type { TestProject } from 'vitest/node'
import { WIDE, WIDE_LIMITERS } from '../iam/api-tokens-http'
import { PROXY_CONFIG } from './accounts'
import { startIam, type IamEndpoint } from './iam-server'

export interface SharedIamInfo {
  url: string
  port: number
  logFile: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedIam: SharedIamInfo
  }
}

const WIDE_AUTH = Object.fromEntries(['signup', 'login', 'oauth', 'refresh', 'links', 'codes', 'forgotPassword', 'emails'].map((name) => [name, WIDE]))

/**
 * The shared instance's config: the proxy header trusted (each test its own client IPs), the demo
 * OAuth provider, and limits so wide that files cannot limit each other (limiter tests start their own).
 */
export const SHARED_IAM_CONFIG = {
  ...PROXY_CONFIG,
  providers: [{ name: 'demo', useStandardProfile: true }],
  rate_limiters: { apiTokensLimiters: WIDE_LIMITERS, ...WIDE_AUTH },
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const iam = await startIam({ config: SHARED_IAM_CONFIG, env: { IAM_TEST_ROUTES: '1' } })
  const dir = mkdtempSync(join(tmpdir(), 'iam-shared-'))
  const logFile = join(dir, 'iam.log')
  writeFileSync(logFile, iam.logs.map((line) => `${line}\n`).join(''))
  for (const stream of [iam.process.stdout, iam.process.stderr]) stream?.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk))
  project.provide('sharedIam', { url: iam.url, port: iam.port, logFile })
  return async () => {
    await iam.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The run's shared IAM, from a test file. `logs` reads its output so far (complete lines only). */
export function sharedIam(): IamEndpoint {
  const { url, port, logFile } = inject('sharedIam')
  return {
    url,
    port,
    get logs() {
      const lines = readFileSync(logFile, 'utf8').split('\n')
      lines.pop()
      return lines
    },
  }
}
