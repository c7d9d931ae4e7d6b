/**
 * The IAM's Prometheus metrics: one prom-client registry per process, fed by
 * the request middleware (requests and latency per route template) and by the signals features
 * publish (lib/signals.ts). Read by GET /metrics.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { onSignal, type IamSignal } from './signals'

/** What the pool gauge reads at scrape time (pg.Pool's own counters). */
export interface PoolStats {
  totalCount: number
  idleCount: number
  waitingCount: number
}

/** What the replica gauges read at scrape time (db/replicas.ts). */
export interface ReplicaStats {
  /** host:port of the replica's URL (never its credentials) */
  name: string
  healthy: boolean
  /** seconds behind the primary at the last probe; undefined before one answered */
  lagSeconds: number | undefined
}

export interface IamMetrics {
  readonly registry: Registry
  /** one finished request: `route` is the route template (never the raw path) */
  observeRequest(input: { method: string; route: string; status: number; seconds: number }): void
  /** the database pool the gauge reads (PostgreSQL only; PGlite has no pool) */
  watchPool(stats: () => PoolStats | undefined): void
  /** the read replicas the replica gauges read (database.replicas; empty without) */
  watchReplicas(stats: () => ReplicaStats[]): void
  /** what the webhook queue gauges read at scrape time (features/webhooks/queue-stats.ts) */
  watchWebhookQueue(stats: () => Promise<WebhookQueueStats>): void
  /** the Argon2id threads' jobs the gauge reads (features/passwords/hash-pool.ts) */
  watchPasswordHashing(stats: () => { running: number; waiting: number }): void
}

/** The webhook outbox as the gauges show it. */
export interface WebhookQueueStats {
  /** deliveries waiting (enabled endpoints) */
  pending: number
  /** age of the oldest of them in seconds; 0 when none */
  oldestPendingSeconds: number
}

/** How long one read of the webhook queue answers the gauges (a scrape every 15 s or more is usual). */
const QUEUE_READ_REUSE_MS = 1_000

/**
 * `read` shared: its promise answers every call started within `ms` of it (monotonic time), a
 * failed read answers undefined and is not kept.
 */
export function reusedFor<T>(ms: number, read: () => Promise<T>, now: () => number = performance.now.bind(performance)): () => Promise<T | undefined> {
  let kept: { at: number; value: Promise<T | undefined> } | undefined
  return () => {
    const at = now()
    if (kept && at - kept.at < ms) return kept.value
    const value = read().catch(() => {
      kept = undefined
      return undefined
    })
    kept = { at, value }
    return value
  }
}

// Latency buckets (seconds) around what the IAM does: cheap reads, Argon2 verifications, mail.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

function createIamMetrics(): IamMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'iam_' })
  const registers = [registry]
  const requests = new Counter({
    name: 'iam_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  })
  const latency = new Histogram({
    name: 'iam_http_request_duration_seconds',
    help: 'Time from the request arriving to the response finishing, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  })
  const counter = <L extends string>(name: string, help: string, label: L) => new Counter({ name, help, labelNames: [label], registers })
  const counters = {
    login: counter('iam_logins_total', 'POST /login answers by outcome', 'outcome'),
    securityEvent: counter(
      'iam_security_events_total',
      'Security events recorded, by type (sign-ins, MFA sent/passed/failed, bans, sessions revoked, API tokens ...)',
      'type',
    ),
    rotation: counter('iam_refresh_rotations_total', 'Refresh-token rotations by outcome (reused = reuse detected, family revoked)', 'outcome'),
    limiterRejected: counter('iam_rate_limit_rejections_total', 'Requests a rate limiter refused, by limiter name', 'limiter'),
    tokenVerify: counter('iam_api_token_verifications_total', 'API token verifications by outcome (ok or the failure reason)', 'outcome'),
    dependencyError: counter('iam_dependency_errors_total', 'Connection-level errors of the database pool, the read replicas and the shared store', 'dependency'),
    laggingRead: counter(
      'iam_db_lagging_reads_total',
      'Reads that may lag (db/replicas.ts), by where they ran: replica, or primary (no healthy replica, or the replica failed)',
      'served_by',
    ),
    webhookDelivery: counter(
      'iam_webhook_deliveries_total',
      'Webhook delivery attempts by outcome: delivered, retry (failed, tried again), dead (schedule spent), gone (410: endpoint disabled)',
      'outcome',
    ),
    dbStatement: counter(
      'iam_db_statements_total',
      'Statements sent to the database (each one round trip), by kind: read, write, transaction (BEGIN/COMMIT/ROLLBACK)',
      'kind',
    ),
  }
  for (const dependency of ['database', 'storage'] as const) counters.dependencyError.inc({ dependency }, 0)

  let replicaStats: () => ReplicaStats[] = () => []
  new Gauge({
    name: 'iam_db_replica_lag_seconds',
    help: 'Seconds each read replica is behind the primary, at its last probe (0 when it replayed all it received)',
    labelNames: ['replica'] as const,
    registers,
    collect() {
      this.reset()
      for (const replica of replicaStats()) if (replica.lagSeconds !== undefined) this.set({ replica: replica.name }, replica.lagSeconds)
    },
  })
  new Gauge({
    name: 'iam_db_replica_healthy',
    help: 'Whether each read replica takes reads (1) or is down until a probe answers (0)',
    labelNames: ['replica'] as const,
    registers,
    collect() {
      this.reset()
      for (const replica of replicaStats()) this.set({ replica: replica.name }, replica.healthy ? 1 : 0)
    },
  })

  let poolStats: () => PoolStats | undefined = () => undefined
  new Gauge({
    name: 'iam_db_pool_connections',
    help: 'PostgreSQL pool connections: total, idle, and requests waiting for one',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = poolStats()
      if (!stats) return
      this.set({ state: 'total' }, stats.totalCount)
      this.set({ state: 'idle' }, stats.idleCount)
      this.set({ state: 'waiting' }, stats.waitingCount)
    },
  })

  let hashing: (() => { running: number; waiting: number }) | undefined
  new Gauge({
    name: 'iam_password_hash_jobs',
    help: 'Argon2id hashes and verifications: running (posted to a thread) and waiting for one',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = hashing?.()
      if (!stats) return
      this.set({ state: 'running' }, stats.running)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })

  let webhookQueue: (() => Promise<WebhookQueueStats>) | undefined
  // one database read serves both gauges and every scrape within a second: a scraper that polls
  // (a dashboard, the benchmark's settling loop) costs the database one statement a second at most
  const readWebhookQueue = reusedFor(QUEUE_READ_REUSE_MS, () => webhookQueue?.() ?? Promise.resolve(undefined))
  new Gauge({
    name: 'iam_webhook_queue_pending',
    help: 'Webhook deliveries waiting to be sent to enabled endpoints',
    registers,
    async collect() {
      const stats = await readWebhookQueue()
      if (stats) this.set(stats.pending)
    },
  })
  new Gauge({
    name: 'iam_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery still waiting (0 when none)',
    registers,
    async collect() {
      const stats = await readWebhookQueue()
      if (stats) this.set(stats.oldestPendingSeconds)
    },
  })
  for (const outcome of ['delivered', 'retry', 'dead', 'gone'] as const) counters.webhookDelivery.inc({ outcome }, 0)

  const count = (signal: IamSignal): void => {
    switch (signal.kind) {
      case 'login': return counters.login.inc({ outcome: signal.outcome })
      case 'securityEvent': return counters.securityEvent.inc({ type: signal.type })
      case 'rotation': return counters.rotation.inc({ outcome: signal.outcome })
      case 'limiterRejected': return counters.limiterRejected.inc({ limiter: signal.limiter })
      case 'tokenVerify': return counters.tokenVerify.inc({ outcome: signal.outcome })
      case 'dependencyError': return counters.dependencyError.inc({ dependency: signal.dependency })
      case 'dbStatement': return counters.dbStatement.inc({ kind: signal.statement })
      case 'laggingRead': return counters.laggingRead.inc({ served_by: signal.servedBy })
      case 'webhookDelivery': return counters.webhookDelivery.inc({ outcome: signal.outcome })
    }
  }
  onSignal(count)

  return {
    registry,
    observeRequest({ method, route, status, seconds }) {
      const labels = { method, route, status: String(status) }
      requests.inc(labels)
      latency.observe(labels, seconds)
    },
    watchPool(stats) {
      poolStats = stats
    },
    watchReplicas(stats) {
      replicaStats = stats
    },
    watchWebhookQueue(stats) {
      webhookQueue = stats
    },
    watchPasswordHashing(stats) {
      hashing = stats
    },
  }
}

let metrics: IamMetrics | undefined

/** The process's metrics, created on first use (a process that never serves needs none). */
export function useIamMetrics(): IamMetrics {
  metrics ??= createIamMetrics()
  return metrics
}
