// The mount and its body bound are part of the contract (iam/contract/oidc-mount.ts), which the
// gateway reads too; the IAM's routes keep importing them from here.
export * from '../../contract/oidc-mount'
