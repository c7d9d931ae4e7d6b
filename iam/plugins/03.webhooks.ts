/**
 * The webhook delivery worker on a timer (features/webhooks/deliver.ts): every `webhooks.pollMs`
 * each instance re-reads which event types are subscribed (features/webhooks/subscriptions.ts) and
 * sends the deliveries that are due. Every instance may run it at once: deliveries are taken with
 * a lease under `FOR UPDATE SKIP LOCKED`. `webhooks.worker: false` leaves the sending to others
 * (events are still queued by this instance's changes, and the subscriptions still re-read).
 *
 * A round takes due deliveries while fewer than `webhooks.batch` are in flight on this instance and
 * does not wait for their answers: a slow receiver holds its own slots, not the worker. Rounds and
 * deliveries go through runAfterResponse (lib/background.ts), so a shutdown waits for them before
 * the pools close; a round still going when the next is due is not doubled.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { startDeliveries } from '../features/webhooks/deliver'
import { webhookQueueStats } from '../features/webhooks/deliveries'
import { reloadSubscriptions } from '../features/webhooks/endpoints'
import { turnSubscriptionsOff } from '../features/webhooks/subscriptions'
import { runAfterResponse } from '../lib/background'
import { useIamMetrics } from '../lib/metrics'

export default defineNitroPlugin((nitroApp) => {
  let timer: NodeJS.Timeout | undefined
  let running = false
  let closed = false
  whenIamReady().then(
    (ctx) => {
      const { enabled, worker, pollMs, batch } = ctx.config.webhooks
      if (!enabled) return turnSubscriptionsOff()
      useIamMetrics().watchWebhookQueue(() => webhookQueueStats(ctx.db, ctx.now()))
      if (closed) return
      // deliveries in flight on this instance: at most `batch`, whatever their receivers take
      let inFlight = 0
      const onError = (error: Error) => ctx.log.error('webhook round failed', { error: error.message })
      const run = async () => {
        try {
          // every instance keeps its snapshot fresh, a worker or not: its own changes read it
          await reloadSubscriptions(ctx)
          while (worker && !closed && inFlight < batch) {
            const { claimed, done } = await startDeliveries(ctx, batch - inFlight)
            if (claimed === 0) break
            inFlight += claimed
            // tracked like the round, so a shutdown waits for the answers before the pools close
            runAfterResponse(() => done.finally(() => (inFlight -= claimed)), onError)
          }
        } finally {
          running = false
        }
      }
      const tick = () => {
        if (running || closed) return
        running = true
        runAfterResponse(run, onError)
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
