/**
 * The account purge on a timer: every `accountDeletion.purgeEveryMs` (an hour by default; 0 turns
 * it off) each instance erases the accounts whose confirmed deletion is due
 * (features/account-deletion/purge.ts). Nitro's scheduled tasks are off in this app
 * (nitro.config.ts, `experimental.tasks`), and a plain timer needs no scheduler: the purge takes
 * each account with a row lock that skips what another instance holds, so every instance may run
 * it at once. `users:purge` runs the same purge from the CLI. The timer's rules (no doubled run, a
 * shutdown waits for the run) are lib/periodic.ts's.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { purgeDueAccounts } from '../features/account-deletion/purge'
import { schedulePeriodic } from '../lib/periodic'

export default defineNitroPlugin((nitroApp) => {
  schedulePeriodic(nitroApp, whenIamReady(), (ctx) => {
    const everyMs = ctx.config.accountDeletion.purgeEveryMs
    if (everyMs === 0) return undefined
    return {
      everyMs,
      run: async () => {
        const { purged } = await purgeDueAccounts(ctx.db, new Date(ctx.now()))
        if (purged > 0) ctx.log.info('accounts purged', { purged })
      },
      onError: (error) => ctx.log.error('account purge failed', { error: error.message }),
    }
  })
})
