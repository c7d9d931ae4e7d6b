/**
 * The snapshot of the domains that require SSO (features/enterprise/sso-required.ts) read at boot
 * and every `enterprise.ssoRequiredRefreshMs` (10 s by default; 0 reads it at boot only): a domain
 * or connection changed on another instance is enforced here within that. One small statement per
 * interval, whatever the traffic; the sign-ins themselves read the snapshot only. The timer's rules
 * (no doubled read, a shutdown waits for the read) are lib/periodic.ts's.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { reloadSsoRequired } from '../features/enterprise/sso-required'
import { schedulePeriodic } from '../lib/periodic'

export default defineNitroPlugin((nitroApp) => {
  schedulePeriodic(nitroApp, whenIamReady(), (ctx) => {
    const everyMs = ctx.config.enterprise.ssoRequiredRefreshMs
    return {
      everyMs,
      runAtStart: true,
      run: () => reloadSsoRequired(ctx.db, everyMs),
      // a failed read leaves the last snapshot, which goes stale and then the lookups read the database
      onError: (error) => ctx.log.error('sso-required domains not read', { error: error.message }),
    }
  })
})
