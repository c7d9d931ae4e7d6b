/**
 * The webhook delivery worker on a timer (features/webhooks/deliver.ts): every `webhooks.pollMs`
 * each instance re-reads which event types are subscribed (features/webhooks/subscriptions.ts) and
 * sends the deliveries that are due, and every few seconds moves up a delivery left waiting behind
 * one already settled (features/webhooks/queue-order.ts), and every ten minutes deletes what the
 * delivery log no longer keeps (features/webhooks/retention.ts). Every instance may run it at once:
 * deliveries are taken with a lease under `FOR UPDATE SKIP LOCKED`. `webhooks.worker: false` leaves the sending to others
 * (events are still queued by this instance's changes, and the subscriptions still re-read).
 *
 * A round takes due deliveries while fewer than `webhooks.batch` are in flight on this instance, at
 * most `webhooks.maxInFlightPerEndpoint` of them to one endpoint, and does not wait for their
 * answers: a slow receiver holds its own slots, not the worker. A slot goes
 * on with the next delivery of the same account while there is one (deliver.ts, startDeliveries);
 * when slots come free, the instance claims again for them, without waiting for the next poll,
 * until a claim finds fewer than it asked for. Deliveries and these claims go through
 * runAfterResponse (lib/background.ts) like the rounds (lib/periodic.ts), so a shutdown waits for
 * them before the pools close.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { whenIamReady } from '../context'
import { startDeliveries } from '../features/webhooks/deliver'
import { moveUpStranded, STRANDED_SWEEP_MS } from '../features/webhooks/queue-order'
import { webhookQueueStats } from '../features/webhooks/deliveries'
import { reloadSubscriptions } from '../features/webhooks/endpoints'
import { pruneOrphanedDeliveries, pruneSettledDeliveries, PRUNE_SWEEP_MS } from '../features/webhooks/retention'
import { turnSubscriptionsOff } from '../features/webhooks/subscriptions'
import { runAfterResponse } from '../lib/background'
import { useIamMetrics } from '../lib/metrics'
import { schedulePeriodic } from '../lib/periodic'

export default defineNitroPlugin((nitroApp) => {
  schedulePeriodic(nitroApp, whenIamReady(), (ctx, state) => {
    const { enabled, worker, pollMs, batch } = ctx.config.webhooks
    if (!enabled) {
      turnSubscriptionsOff()
      return undefined
    }
    useIamMetrics().watchWebhookQueue(() => webhookQueueStats(ctx.db, ctx.now()))
    // deliveries in flight on this instance: at most `batch`, whatever their receivers take, and of
    // them at most `maxInFlightPerEndpoint` to one endpoint (counted by endpoint row id)
    let inFlight = 0
    const busy = new Map<number, number>()
    // one claim loop at a time on this instance: two groups finishing together claim once, not twice
    let claiming = false
    const onError = (error: Error) => ctx.log.error('webhook round failed', { error: error.message })
    /**
     * Takes due deliveries while slots are free and starts them. Stops when a claim finds none: what
     * becomes due later (a retry's time, another instance's new event) waits for the next poll.
     */
    const fill = async () => {
      if (claiming) return
      claiming = true
      try {
        while (worker && !state.closed && inFlight < batch) {
          const asked = batch - inFlight
          const { claimed, slots } = await startDeliveries(ctx, asked, { chain: goingOn, busy })
          if (claimed === 0) break
          inFlight += claimed
          for (const { endpointId } of slots) busy.set(endpointId, (busy.get(endpointId) ?? 0) + 1)
          // a slot is free once its delivery, and the ones of the same account chained after it (to
          // the same endpoint), are done
          for (const { endpointId, settled } of slots) {
            runAfterResponse(
              () =>
                settled.finally(() => {
                  inFlight -= 1
                  const left = busy.get(endpointId)! - 1
                  if (left > 0) busy.set(endpointId, left)
                  else busy.delete(endpointId)
                  refill()
                }),
              onError,
            )
          }
          // fewer than asked: nothing else was due a moment ago; what the answers free is claimed then
          if (claimed < asked) break
        }
      } finally {
        // set in the same turn as the loop's last check: a group that finishes after it starts a loop of its own
        claiming = false
      }
    }
    // a slot goes on with its account's next delivery until the worker stops
    const goingOn = () => worker && !state.closed
    // the slots that come free are taken again at once, not at the next poll: a backlog drains as
    // fast as its receivers answer, not `batch` per `pollMs`. Tracked like the deliveries, so a
    // shutdown waits for it.
    const refill = () => {
      if (worker && !state.closed && !claiming) runAfterResponse(fill, onError)
    }
    let sweptAt = 0
    // the log's prune (features/webhooks/retention.ts): apart from the round, so a long first prune
    // delays no delivery; one at a time, the first at the worker's start
    let prunedAt = -Infinity
    let pruning = false
    const prune = () => {
      const { retentionMs } = ctx.config.webhooks
      if (!worker || state.closed || pruning || ctx.now() - prunedAt < PRUNE_SWEEP_MS) return
      pruning = true
      prunedAt = ctx.now()
      runAfterResponse(
        async () => {
          try {
            // a delivery whose endpoint is gone goes whatever the retention: nobody is left to send it to
            const orphaned = await pruneOrphanedDeliveries(ctx.db)
            if (orphaned > 0) ctx.log.info('webhook deliveries of deleted endpoints pruned', { pruned: orphaned })
            const pruned = retentionMs === 0 ? 0 : await pruneSettledDeliveries(ctx.db, new Date(prunedAt - retentionMs))
            if (pruned > 0) ctx.log.info('webhook deliveries pruned from the log', { pruned })
          } finally {
            pruning = false
          }
        },
        (error) => ctx.log.error('webhook log prune failed', { error: error.message }),
      )
    }
    return {
      everyMs: pollMs,
      runAtStart: true,
      run: async () => {
        // every instance keeps its snapshot fresh, a worker or not: its own changes read it
        await reloadSubscriptions(ctx)
        if (worker && ctx.now() - sweptAt >= STRANDED_SWEEP_MS) {
          sweptAt = ctx.now()
          await moveUpStranded(ctx.db, new Date(sweptAt))
        }
        prune()
        await fill()
      },
      onError,
    }
  })
})
