/**
 * The shared store's public face, kept at this path for its many importers: the implementation is
 * the storage layer in ./storage (unstorage, key encoding, the per-driver atomic operations).
 */
export { createStore, encodeKeyPart, hashKeyPart, storeKey, type SharedStore, type StoreOptions } from './storage'
