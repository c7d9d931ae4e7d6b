import { buildGatewayIfStale, GATEWAY_TEST_BUILD } from './build'

export default function setup(): void {
  buildGatewayIfStale(GATEWAY_TEST_BUILD)
}
