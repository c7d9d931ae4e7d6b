/**
 * Where the IDs of the AuthnRequests we sent wait for their responses: the shared store, so any
 * IAM instance can take the response, each with the TTL `enterprise.saml.requestTtlMs`. node-saml
 * saves and reads through this provider (its `cacheProvider` option); its removal is a no-op
 * because removing is not atomic with reading: single use is decided after the response verified,
 * by one `setIfAbsent` of a "used" mark (saml-response.ts), so of two posts of the same response
 * at once exactly one wins.
 */
import type { CacheItem, CacheProvider } from '@node-saml/node-saml'
import { hashKeyPart, storeKey, type SharedStore } from '../../lib/storage'

export const requestKey = (connectionId: string, requestId: string) => storeKey('saml:request', connectionId, hashKeyPart(requestId))
export const usedRequestKey = (connectionId: string, requestId: string) => storeKey('saml:request-used', connectionId, hashKeyPart(requestId))
export const seenAssertionKey = (connectionId: string, assertionId: string) => storeKey('saml:assertion', connectionId, hashKeyPart(assertionId))

export function storeCacheProvider(store: SharedStore, connectionId: string, ttlMs: number): CacheProvider {
  return {
    async saveAsync(key: string, value: string): Promise<CacheItem | null> {
      await store.set(requestKey(connectionId, key), value, ttlMs)
      return { value, createdAt: store.now() }
    },
    getAsync: (key: string) => store.get<string>(requestKey(connectionId, key)),
    removeAsync: async (key: string | null) => key,
  }
}
