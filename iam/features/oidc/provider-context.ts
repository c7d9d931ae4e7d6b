/**
 * oidc-provider runs each of its requests inside its own AsyncLocalStorage
 * (node_modules/oidc-provider/lib/helpers/als.js; request-memo.ts reads it as `Provider.ctx`). On
 * Node 22 an AsyncLocalStorage in use turns on a promise hook for the whole process: from the
 * provider's first request on, every promise of every IAM request (full authentication, API token
 * verification, introspection's one-statement path) paid for it, about a tenth of introspection's
 * CPU (docs/performance.md). The storage is switched off (`disable()`, Node's API for this) whenever
 * no provider request is in flight, and the hook with it; the provider's next request switches it
 * on again (its `run()` does).
 *
 * Only the provider's requests read the storage, and each of them is counted here from before the
 * provider sees it until its answer is sent, so none runs with the storage off. Work a request
 * leaves behind it (lib/background.ts) may find no context: the read-ahead then reads the database,
 * as it does outside a request.
 */
import type { AsyncLocalStorage } from 'node:async_hooks'
// @ts-expect-error the library ships no types for its helpers; the default export is the storage
import providerStorage from 'oidc-provider/lib/helpers/als.js'

const storage = providerStorage as AsyncLocalStorage<unknown>
let inFlight = 0

/** Runs one provider request (`handle`: until its answer is sent), the storage switched off after the last. */
export async function inProviderRequest<T>(handle: () => Promise<T>): Promise<T> {
  inFlight++
  try {
    return await handle()
  } finally {
    if (--inFlight === 0) storage.disable()
  }
}

/** Whether the provider's storage (and Node's promise hook with it) is on; for the tests. */
export function providerStorageEnabled(): boolean {
  return (storage as unknown as { enabled?: boolean }).enabled === true
}
