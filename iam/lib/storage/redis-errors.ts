/**
 * How ioredis reports a Redis that is unreachable, hanging or not ready: messages and error classes
 * without a socket code. lib/outage.ts asks this to tell a storage outage (503) from a defect (500).
 */

const REDIS_OUTAGE_MESSAGES = [
  /^Stream isn't writeable and enableOfflineQueue options is false$/, // disconnected
  /^Connection is closed\.$/,
  /^Command timed out$/, // commandTimeout (storage.timeoutMs)
  /^LOADING /, // Redis still loading its dataset
  // Sentinel: a primary demoted to replica refuses writes until the client follows the new one
  /^READONLY /,
  /^All sentinels are unreachable/,
  // Cluster: no primary for the slot (a fail-over under way), or no node reachable
  /^CLUSTERDOWN /,
  /^TRYAGAIN /,
  /^Cluster isn't ready and enableOfflineQueue options is false$/,
  /^None of startup nodes is available$/,
  /^Failed to refresh slots cache\.$/,
  /^Cluster is disconnect(ed|ing)\.$/,
  /^Node is disconnected$/,
]

/** ioredis error classes whose only meaning is a connection problem. */
const REDIS_OUTAGE_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError'])

/** True when `error` itself is ioredis saying the connection is lost, unobtainable or too slow. */
export function isRedisConnectionError(error: Error): boolean {
  return REDIS_OUTAGE_ERROR_NAMES.has(error.name) || REDIS_OUTAGE_MESSAGES.some((pattern) => pattern.test(error.message))
}
