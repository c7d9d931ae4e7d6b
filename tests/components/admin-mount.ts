/**
 * How the admin console's page tests mount a page: signed in as `session` (the BFF's session answer),
 * attached to the document unless asked not to (the focus checks need it), and unmounted with the
 * Nuxt state cleared after each test (the session is shared state: useState).
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach } from 'vitest'
import type { DefineComponent } from 'vue'
import { answer } from './bff'

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

export async function mountSignedIn(page: DefineComponent, route: string, session: Record<string, unknown>, options: { attach?: boolean } = {}) {
  answer('GET', '/api/auth/session', 200, session)
  const wrapper = await mountSuspended(page, { route, ...(options.attach === false ? {} : { attachTo: document.body }) })
  mounted.push(wrapper)
  return wrapper
}
