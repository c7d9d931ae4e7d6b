// The code lives in shared/read-bounded.ts (both apps run it); the IAM's files keep importing it from here.
export * from '../../shared/read-bounded'
