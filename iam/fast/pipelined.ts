/**
 * The statements that run on every request (direct.ts) go out on a few connections in pg's
 * pipeline mode instead of through the pool: each is written as soon as it is made, behind the
 * ones still unanswered on its connection, without waiting for them.
 *
 * Why: through the pool, one connection carries one statement at a time, so under load every
 * statement wakes an idle backend and every answer an idle IAM. A pipelined backend finds the next
 * statement already in its socket buffer and answers several per wake-up, which about halves
 * PostgreSQL's CPU per request and cuts the IAM's (figures: docs/performance.md, the fast paths).
 *
 * What stays as through the pool:
 * - each statement is its own implicit transaction (pg ends each with its own Sync), so one failing
 *   statement fails alone and the rest of the pipeline is answered;
 * - statements are named prepared statements (db/database.ts BoundedClient.query, prepared.ts);
 * - an outage is a 503 within 2 s (lib/outage.ts): a lost connection fails the statements on it and
 *   the next statement opens a new one (connect bounded by database.connectTimeoutMs); a statement
 *   unanswered for STATEMENT_TIMEOUT_MS fails, and pg closes its connection, since the statements
 *   behind it cannot be answered before it.
 *
 * What does not: a slow statement delays the ones behind it on its connection. Only the fixed
 * single-row plain reads of direct.ts go this way (a write or a locking read may wait for a row
 * lock); everything else, transactions included, takes a pooled connection. A statement goes to
 * the connection with the fewest unanswered.
 *
 * No equivalence test of its own: tests/unit/pipelined.test.ts holds its rules (PostgreSQL), and the
 * rows it answers are tests/unit/direct-equivalence.test.ts's.
 */

import { PIPELINES_CLOSED, STATEMENT_TIMED_OUT } from '../lib/outage'

/** What this needs of a pg client in pipeline mode (db/database.ts BoundedClient with `pipeline: true`). */
export interface PipelineClient {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>
  on(event: 'error', listener: (error: Error) => void): unknown
  once(event: 'end', listener: () => void): unknown
  end(): Promise<void>
}


/**
 * The longest a pipelined statement waits for its answer: the bound the pool's acquire timeout puts
 * on a request (db/database.ts), so a database that stops answering is a 503 within 2 s on this path too.
 */
export const STATEMENT_TIMEOUT_MS = 2000

interface Slot {
  client: PipelineClient | undefined
  connecting: Promise<PipelineClient> | undefined
  unanswered: number
}

export class Pipelines {
  readonly #slots: Slot[]
  readonly #open: () => Promise<PipelineClient>
  #ended = false

  /** `size` connections, each opened by `open` when first needed (or by warm) and again after it is lost. */
  constructor(size: number, open: () => Promise<PipelineClient>) {
    this.#slots = Array.from({ length: size }, () => ({ client: undefined, connecting: undefined, unanswered: 0 }))
    this.#open = open
  }

  async query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
    if (this.#ended) throw new Error(PIPELINES_CLOSED)
    let slot = this.#slots[0]!
    for (const other of this.#slots) if (other.unanswered < slot.unanswered) slot = other
    slot.unanswered++
    try {
      const client = slot.client ?? (await this.#connect(slot))
      try {
        return await client.query(text, values)
      } catch (error) {
        // pg answers the timeout before it closes the connection: no statement may follow on it meanwhile
        if ((error as Error).message === STATEMENT_TIMED_OUT && slot.client === client) slot.client = undefined
        throw error
      }
    } finally {
      slot.unanswered--
    }
  }

  /** Opens every connection now (boot), so the first burst does not. */
  async warm(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.client ?? this.#connect(slot)))
  }

  /** Connections open now, and statements made and not yet answered (the pool gauge leaves these out). */
  stats(): { open: number; unanswered: number } {
    let open = 0
    let unanswered = 0
    for (const slot of this.#slots) {
      if (slot.client) open++
      unanswered += slot.unanswered
    }
    return { open, unanswered }
  }

  /** Refuses new statements, lets those made before be answered, then closes every connection. */
  async end(): Promise<void> {
    this.#ended = true
    await Promise.allSettled(this.#slots.map(async (slot) => {
      const client = slot.client ?? (await slot.connecting?.catch(() => undefined))
      slot.client = undefined
      await client?.end()
    }))
  }

  // one attempt at a time per slot: every statement waiting for it shares its outcome, and a
  // failed attempt leaves the slot empty for the next statement to try again
  #connect(slot: Slot): Promise<PipelineClient> {
    slot.connecting ??= this.#open().then(
      (client) => {
        slot.connecting = undefined
        // pg fails the statements on a lost connection itself (and refuses new ones from its
        // 'error' on, a tick before its 'end'); without a listener the 'error' would end the process
        const lost = () => {
          if (slot.client === client) slot.client = undefined
        }
        client.on('error', lost)
        client.once('end', lost)
        // opened while closing: end() waits for this attempt and closes it after its statements
        slot.client = client
        return client
      },
      (error: unknown) => {
        slot.connecting = undefined
        throw error
      },
    )
    return slot.connecting
  }
}
