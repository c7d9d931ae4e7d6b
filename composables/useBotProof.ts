/**
 * The proof-of-work check of the forms that make accounts or mails (sign-up, password reset, email
 * sign-in; the IAM's features/bot-challenge/bot-proof.ts): a challenge from GET
 * /api/auth/bot-challenge, solved in the browser with altcha-lib's Web Crypto solver while the
 * person types. `start()` on mount; `take()` on submit waits for the solution if it is not ready yet
 * (nothing is disabled meanwhile, so a keyboard user is never held up by it) and starts the next,
 * since a solution is spent by one submission. Off (`enabled: false`), `take()` gives undefined.
 */
import { solveChallenge } from 'altcha-lib/v1'

export type BotCheckState = 'idle' | 'checking' | 'ready' | 'off' | 'failed'

interface Challenge {
  algorithm: string
  challenge: string
  maxnumber?: number
  salt: string
  signature: string
}

export function useBotProof() {
  const state = ref<BotCheckState>('idle')
  let pending: Promise<string | undefined> | null = null

  async function solve(): Promise<string | undefined> {
    state.value = 'checking'
    const res = await bffFetch('/api/auth/bot-challenge')
    const data = res.body.data as { enabled?: boolean; challenge?: Challenge } | undefined
    if (res.status === 200 && data?.enabled === false) {
      state.value = 'off'
      return undefined
    }
    const c = data?.challenge
    const solution = res.status === 200 && c ? await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise : null
    if (!c || !solution) {
      state.value = 'failed'
      return undefined
    }
    state.value = 'ready'
    return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature }))
  }

  function start(): void {
    if (import.meta.server || pending) return
    pending = solve().catch(() => {
      state.value = 'failed'
      return undefined
    })
  }

  /** The solution for this submission (undefined when the check is off or could not run), and the next one started. */
  async function take(): Promise<string | undefined> {
    start()
    const proof = await pending
    pending = null
    if (state.value !== 'off') start()
    return proof
  }

  return { state: readonly(state), start, take }
}
