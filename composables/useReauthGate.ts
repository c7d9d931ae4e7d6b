/**
 * The in-place re-authentication of the account page: a change to how the account signs in
 * (two-step sign-in, passkeys, the email) answers 403 `reauthenticate: true` when the sign-in is
 * older than the IAM's window (security.reauthenticateWithinMs). `guard` runs a call; on that
 * answer it opens the prompt (components/ReauthenticatePrompt.vue) beside the action and, once the
 * person proved it is them, runs the same call again: nothing they typed or chose is lost. It
 * resolves null when they cancel.
 */
export function useReauthGate() {
  const asking = ref(false)
  let settle: ((proven: boolean) => void) | null = null

  async function guard(call: () => Promise<BffResult>): Promise<BffResult | null> {
    const result = await call()
    if (result.status !== 403 || result.body.reauthenticate !== true) return result
    asking.value = true
    const proven = await new Promise<boolean>((resolve) => (settle = resolve))
    asking.value = false
    settle = null
    return proven ? call() : null
  }

  return {
    asking: readonly(asking),
    guard,
    /** the prompt's `done` */
    proven: () => settle?.(true),
    /** the prompt's `cancel` */
    cancelled: () => settle?.(false),
  }
}
