import type { TestProject } from 'vitest/node'
import { buildGatewayInBackground, buildIamInBackground, GATEWAY_TEST_BUILD, IAM_TEST_BUILD } from './build'

/**
 * The IAM's test build, when stale. When this run also has a project on the gateway, its build
 * starts now beside the IAM's (each is mostly one core) and that project's setup awaits it.
 */
export default async function setup(project: TestProject): Promise<void> {
  if (project.vitest.projects.some((p) => p.name === 'gateway' || p.name === 'e2e')) void buildGatewayInBackground(GATEWAY_TEST_BUILD)
  await buildIamInBackground(IAM_TEST_BUILD)
}
