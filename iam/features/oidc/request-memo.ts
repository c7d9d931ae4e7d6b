/**
 * Rows read ahead for the rest of one provider request. A token grant reads the token, then its
 * grant, then its account, each a round trip of its own through the provider's models; the adapter
 * (adapter.ts) reads the three in the token's statement and leaves the grant and the account here,
 * where the provider's next reads of them in the same request find them.
 *
 * Scoped to the request: oidc-provider answers `Provider.ctx` (a public static getter) with the
 * Koa context of the request being served, and the memo hangs off that context, so nothing read
 * ahead for one request is ever answered to another (tests/unit/provider-request-context.test.ts). Outside a request
 * (the CLI, the IAM's own reads) there is no context and nothing is remembered. Each entry answers
 * once: a second read of the same row in the same request goes to the database, as does any read
 * after the request wrote that row.
 *
 * The context comes from provider.ts (readAheadContextFrom) rather than an import of
 * oidc-provider here: accounts.ts is reached from the session code every instance loads at start,
 * and importing the library from it loaded all of it at boot instead of on the provider's first
 * request (the idle memory it cost: docs/performance.md, "The OpenID Provider's token endpoints").
 */
const memos = new WeakMap<object, Map<string, unknown>>()

let currentRequest: () => object | undefined = () => undefined

/** Where the current provider request is found (provider.ts hands over `Provider.ctx`). */
export function readAheadContextFrom(source: () => object | undefined): void {
  currentRequest = source
}

/** The provider request being served (oidc-provider's Koa context), or undefined outside one. */
export function currentProviderRequest(): object | undefined {
  return currentRequest()
}

/** Remembers `value` (a row, or null for a row that does not exist) under `key` for the current request. */
export function readAhead(key: string, value: unknown): void {
  const ctx = currentRequest()
  if (!ctx) return
  let memo = memos.get(ctx)
  if (!memo) memos.set(ctx, (memo = new Map()))
  memo.set(key, value)
}

/** What was read ahead under `key` in this request (once), or `{ found: false }` to read it now. */
export function takeReadAhead<T>(key: string): { found: true; value: T } | { found: false } {
  const ctx = currentRequest()
  const memo = ctx && memos.get(ctx)
  if (!memo?.has(key)) return { found: false }
  const value = memo.get(key) as T
  memo.delete(key)
  return { found: true, value }
}

/** Forgets `key` in this request: the row was written, so a read must see the new row. */
export function forgetReadAhead(key: string): void {
  const ctx = currentRequest()
  if (ctx) memos.get(ctx)?.delete(key)
}
