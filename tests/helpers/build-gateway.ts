import { buildGatewayInBackground, GATEWAY_TEST_BUILD } from './build'

/** The gateway's test build, when stale (possibly already started beside the IAM's: build-iam.ts). */
export default async function setup(): Promise<void> {
  await buildGatewayInBackground(GATEWAY_TEST_BUILD)
}
