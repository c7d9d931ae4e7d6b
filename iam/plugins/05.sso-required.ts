/**
 * The snapshot of the domains that require SSO (features/enterprise/sso-required.ts) read at boot
 * and every `enterprise.ssoRequiredRefreshMs` (10 s by default): a domain or connection changed on
 * another instance is enforced here within that. One small statement per interval, whatever the
 * traffic; the sign-ins themselves read the snapshot only. A read still going when the next is due
 * is not doubled; reads go through runAfterResponse (lib/background.ts), so a shutdown waits for
 * them before the pools close.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { reloadSsoRequired } from '../features/enterprise/sso-required'
import { runAfterResponse } from '../lib/background'

export default defineNitroPlugin((nitroApp) => {
  let timer: NodeJS.Timeout | undefined
  let running = false
  let closed = false
  whenIamReady().then(
    (ctx) => {
      if (closed) return
      const everyMs = ctx.config.enterprise.ssoRequiredRefreshMs
      const run = async () => {
        try {
          await reloadSsoRequired(ctx.db, everyMs)
        } finally {
          running = false
        }
      }
      const tick = () => {
        if (running || closed) return
        running = true
        // a failed read leaves the last snapshot, which goes stale and then the lookups read the database
        runAfterResponse(run, (error) => ctx.log.error('sso-required domains not read', { error: error.message }))
      }
      tick()
      if (everyMs === 0) return
      timer = setInterval(tick, everyMs)
      // the timer alone never keeps the process up
      timer.unref()
    },
    // a failed boot stops the process (plugins/00.boot.ts): nothing to schedule
    () => undefined,
  )
  nitroApp.hooks.hook('close', () => {
    closed = true
    clearInterval(timer)
  })
})
