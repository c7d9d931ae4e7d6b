/**
 * Test build only: requests this process has received and not yet answered (graceful-shutdown
 * tests), and how many of them took Nitro's path, whose 'request' hook the direct lane skips
 * (iam/plugins/02.direct-lane.ts; tests/iam/direct-lane.test.ts).
 */
export const requestCounter = { received: 0, inFlight: 0, nitroPath: 0 }

/** The counter's own route is left out, so polling it does not move what it reports. */
export const COUNTER_PATH = '/__test/requests'
