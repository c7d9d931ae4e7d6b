/**
 * A signed-in page that comes back into view (the tab focused again, the laptop woken) reads the
 * session again: the BFF renews an access token that came due meanwhile, and a session ended
 * elsewhere (signed out everywhere, a password change) shows as signed out at once instead of on
 * the next action. At most once per MIN_INTERVAL_MS, so switching tabs back and forth costs nothing.
 */
const MIN_INTERVAL_MS = 30_000

export default defineNuxtPlugin(() => {
  const auth = useAuth()
  let last = Date.now()
  const refresh = () => {
    if (document.visibilityState !== 'visible' || auth.state.value.status !== 'signed-in') return
    if (Date.now() - last < MIN_INTERVAL_MS) return
    last = Date.now()
    void auth.load({ fresh: true })
  }
  window.addEventListener('focus', refresh)
  document.addEventListener('visibilitychange', refresh)
})
