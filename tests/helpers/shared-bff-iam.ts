/**
 * One IAM for the gateway files whose stack needs no IAM config of its own (vitest globalSetup of
 * the gateway project): configured as `npm start` configures the gateway's IAM (HMAC version 2
 * with body digests, trusting the gateway's X-Forwarded-For), with sign-up and sign-in limits so
 * wide that files cannot limit each other. Each file still starts its own gateway in front of it
 * (setupStackOnSharedIam, tests/gateway/bff-harness.ts); tests stay independent through fresh
 * addresses (freshEmail). Nobody moves its clock.
 */
import { inject } from 'vitest'
import type { TestProject } from 'vitest/node'
import { startIam, type IamServer } from './iam-server'

export type SharedBffIam = Pick<IamServer, 'url' | 'port' | 'share' | 'dataDir'>

/** The HMAC client the test gateways sign with. */
export const hmac = { clientId: 'gateway', sharedSecret: 'bff-test-shared-secret-0123456789abcdef' }

/** The IAM side of a BFF stack: HMAC version 2 required, the gateway's address trusted. */
export const BFF_IAM_BASE = { service: { Hmac: { ...hmac, requireBodyDigest: true }, proxy: { trust: true, ipToTrust: '127.0.0.1' } } }

const WIDE = { points: 100_000, duration: 60, blockDuration: 1 }

/** the one audience the shared IAM issues per-API tokens for: a file's gateway on it names this as its API's `audience` */
export const SHARED_API_AUDIENCE = 'https://shared-api.test.example'

declare module 'vitest' {
  export interface ProvidedContext {
    sharedBffIam: SharedBffIam
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // every browser of every file signs up and in, and confirms its address (the codes limiter), from 127.0.0.1 through its gateway
  // test routes on (IAM_TEST_ROUTES) for what no HTTP route of its own can set up, such as a verified
  // domain without a DNS server (routes/__test/domain-verified); nobody moves its clock
  const iam = await startIam({
    config: { ...BFF_IAM_BASE, rate_limiters: { signup: WIDE, login: WIDE, codes: WIDE }, jwt: { api_access_tokens: { audiences: [SHARED_API_AUDIENCE] } } },
    env: { IAM_TEST_ROUTES: '1' },
  })
  project.provide('sharedBffIam', { url: iam.url, port: iam.port, share: iam.share, dataDir: iam.dataDir })
  return () => iam.stop()
}

/** The gateway project's shared IAM, from a test file. */
export function sharedBffIam(): SharedBffIam {
  return inject('sharedBffIam')
}
