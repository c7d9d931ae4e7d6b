/**
 * The webhook delivery worker on a timer (features/webhooks/deliver.ts): every `webhooks.pollMs`
 * each instance re-reads which event types are subscribed (features/webhooks/subscriptions.ts) and
 * sends the deliveries that are due. Every instance may run it at once: deliveries are taken with
 * a lease under `FOR UPDATE SKIP LOCKED`. `webhooks.worker: false` leaves the sending to others
 * (events are still queued by this instance's changes).
 *
 * A round goes through runAfterResponse (lib/background.ts), so a shutdown waits for it before the
 * pools close; a round still going when the next is due is not doubled. A round that sent a full
 * batch is followed at once by the next, so a backlog drains faster than one batch per poll.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { runDeliveryRound } from '../features/webhooks/deliver'
import { webhookQueueStats } from '../features/webhooks/deliveries'
import { reloadSubscriptions } from '../features/webhooks/endpoints'
import { runAfterResponse } from '../lib/background'
import { useIamMetrics } from '../lib/metrics'

export default defineNitroPlugin((nitroApp) => {
  let timer: NodeJS.Timeout | undefined
  let running = false
  let closed = false
  whenIamReady().then(
    (ctx) => {
      useIamMetrics().watchWebhookQueue(() => webhookQueueStats(ctx.db, ctx.now()))
      const { worker, pollMs, batch } = ctx.config.webhooks
      if (!worker || closed) return
      const run = async () => {
        try {
          await reloadSubscriptions(ctx)
          while (!closed && (await runDeliveryRound(ctx)) >= batch) {
            // a full batch: more may be due
          }
        } finally {
          running = false
        }
      }
      const tick = () => {
        if (running || closed) return
        running = true
        runAfterResponse(run, (error) => ctx.log.error('webhook round failed', { error: error.message }))
      }
      tick()
      timer = setInterval(tick, pollMs)
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
