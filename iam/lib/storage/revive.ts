/**
 * ioredis (5.x) ends a Sentinel client for good when its fail-over detector, still subscribed from
 * the connection to the old primary, hears +switch-master while a reconnect is asking the sentinels
 * where the primary is: the connector is told to stop, the pending connect fails with "Connection
 * is closed." and Redis#connect sets the status to `end`, with no retry after it
 * (node_modules/ioredis/built/Redis.js, connect). Every request would then answer 503 until a
 * restart. An end this process did not ask for starts a new connection instead, a tenth of a
 * second later (so a connect that fails at once cannot spin).
 */
import type { RedisClient } from './atomic-redis'

const AFTER_MS = 100

export function reviveAfterUnaskedEnd(client: RedisClient): { stop(): void } {
  let stopped = false
  const revive = () => {
    if (!stopped && client.status === 'end') client.connect().catch(() => undefined)
  }
  client.on('end', () => {
    if (!stopped) setTimeout(revive, AFTER_MS).unref()
  })
  return {
    /** before a close this process asks for: its end stays an end */
    stop: () => {
      stopped = true
    },
  }
}
