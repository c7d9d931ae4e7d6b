/**
 * The unstorage drivers the IAM accepts for its shared state, and why no other: the state needs
 * atomic set-if-absent, increment and limiter steps (atomic.ts), which unstorage's API does not
 * offer, so each accepted driver has its own atomic path on its instance. Kept free of imports so
 * the configuration schema can use it.
 */
export const ATOMIC_DRIVERS = ['memory', 'redis'] as const

export type StorageDriverName = (typeof ATOMIC_DRIVERS)[number]

/** The reason a driver is refused, naming it. */
export function refusedDriverMessage(driver: string): string {
  return (
    `storage driver ${JSON.stringify(driver)} is refused: the IAM's shared state (nonces, rate limits, bans) needs ` +
    `atomic set-if-absent, increment and limiter operations, which only the "memory" and "redis" drivers implement here`
  )
}
