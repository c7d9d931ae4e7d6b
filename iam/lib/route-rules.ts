// The rules are matched in the contract (iam/contract/route-rules.ts, the gateway labels its IAM calls
// with them); the IAM's files keep importing them from here.
export * from '../contract/route-rules'
