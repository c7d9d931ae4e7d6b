/**
 * The gateway's one time source (ms since epoch): token life (when to refresh), cookie expiry and
 * the OAuth flow's state judge time by `gatewayNow`, so the test build can move all of them at once
 * (server/test-build/test-clock.ts) instead of tests sleeping. Production never replaces it.
 */
let source: () => number = Date.now

export const gatewayNow = (): number => source()

/** Swaps the source behind `gatewayNow`; only the test build calls this. */
export function replaceGatewayClockSource(next: () => number): void {
  source = next
}
