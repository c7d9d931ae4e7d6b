import { buildIamIfStale, IAM_TEST_BUILD } from './build'

export default function setup(): void {
  buildIamIfStale(IAM_TEST_BUILD)
}
