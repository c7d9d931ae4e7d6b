// The code lives in shared/metrics-access.ts (both apps run it); the IAM's files keep importing it from here.
export * from '../../shared/metrics-access'
