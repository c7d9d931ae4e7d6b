// The code lives in shared/ip.ts (both apps run it); the IAM's files keep importing it from here.
export * from '../../shared/ip'
