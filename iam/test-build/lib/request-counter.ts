/** Test build only: requests this process has received and not yet answered (graceful-shutdown tests). */
export const requestCounter = { received: 0, inFlight: 0 }

/** The counter's own route is left out, so polling it does not move what it reports. */
export const COUNTER_PATH = '/__test/requests'
