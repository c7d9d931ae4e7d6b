/**
 * What the admin console (pages/admin/**) makes of the BFF's answers: the IAM's /admin guards
 * answer 403 for an account that is not a platform administrator and for a session signed in on
 * someone's behalf; the pages show a sentence for each, never the raw body.
 */
import { describeFailure, type BffResult } from './useBff'

/** The IAM's body for an account that is not a platform administrator (iam/http/reauthenticate.ts). */
const NOT_ADMIN = 'Platform administrators only'

export type AdminPageState = 'loading' | 'ready' | 'signed-out' | 'not-admin' | 'impersonating' | 'error'

/** How a page that only reads reacts to a failed call: which state, and the sentence for `error`. */
export function adminFailure(result: BffResult): { state: Exclude<AdminPageState, 'loading' | 'ready'>; message: string } {
  if (result.status === 401 || result.body.signedOut) return { state: 'signed-out', message: describeFailure(result) }
  if (result.status === 403 && result.body.error === NOT_ADMIN) return { state: 'not-admin', message: 'You need platform administrator rights to see this page.' }
  if (result.status === 403 && result.body.impersonated === true) {
    return { state: 'impersonating', message: 'You are signed in on someone’s behalf. End that from the banner at the top of the page to use the admin console.' }
  }
  return { state: 'error', message: describeFailure(result) }
}

/** A list page's cursors: the cursor of each page seen so far, for "Previous" without asking the server. */
export function usePageCursors() {
  const stack = ref<Array<string | undefined>>([undefined])
  return {
    current: computed(() => stack.value[stack.value.length - 1]),
    page: computed(() => stack.value.length),
    next: (cursor: string) => void stack.value.push(cursor),
    previous: () => void (stack.value.length > 1 && stack.value.pop()),
    reset: () => void (stack.value = [undefined]),
  }
}
