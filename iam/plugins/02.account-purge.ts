/**
 * The account purge on a timer: every `accountDeletion.purgeEveryMs` (an hour by default; 0 turns
 * it off) each instance erases the accounts whose confirmed deletion is due
 * (features/account-deletion/purge.ts). Nitro's scheduled tasks are off in this app
 * (nitro.config.ts, `experimental.tasks`), and a plain timer needs no scheduler: the purge takes
 * each account with a row lock that skips what another instance holds, so every instance may run
 * it at once. `users:purge` runs the same purge from the CLI.
 *
 * A run goes through runAfterResponse (lib/background.ts), so a shutdown waits for it before the
 * pools close; a run still going when the next is due is not doubled.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { purgeDueAccounts } from '../features/account-deletion/purge'
import { runAfterResponse } from '../lib/background'

export default defineNitroPlugin((nitroApp) => {
  let timer: NodeJS.Timeout | undefined
  let running = false
  let closed = false
  whenIamReady().then(
    (ctx) => {
      const everyMs = ctx.config.accountDeletion.purgeEveryMs
      if (everyMs === 0 || closed) return
      const run = async () => {
        try {
          const { purged } = await purgeDueAccounts(ctx.db, new Date(ctx.now()))
          if (purged > 0) ctx.log.info('accounts purged', { purged })
        } finally {
          running = false
        }
      }
      timer = setInterval(() => {
        if (running || closed) return
        running = true
        runAfterResponse(run, (error) => ctx.log.error('account purge failed', { error: error.message }))
      }, everyMs)
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
