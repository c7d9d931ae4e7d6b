/**
 * The proof-of-work check of the forms that make accounts or mails (sign-up, password reset, email
 * sign-in; the IAM's features/bot-challenge/bot-proof.ts): a challenge from GET
 * /api/auth/bot-challenge, solved in the browser with altcha-lib's Web Crypto solver while the
 * person types. `start()` on mount; `take()` on submit waits for the solution if it is not ready yet
 * (nothing is disabled meanwhile, so a keyboard user is never held up by it) and starts the next,
 * since a solution is spent by one submission. Off (`enabled: false`), `take()` gives undefined.
 *
 * With the IAM's Turnstile-style provider (`provider: "turnstile"`), the answer names the site key
 * and the script (the BFF's, from the gateway's `botChallenge.turnstileOrigin`): the script is
 * loaded then and only then, and the widget renders into BotCheckStatus's slot; its token is the
 * `botProof`, and a new one is asked for after each submission.
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

/** The part of the provider's widget API the page uses (explicit rendering). */
interface WidgetApi {
  render(container: HTMLElement, options: { sitekey: string; callback: (token: string) => void; 'error-callback': () => void; 'expired-callback': () => void }): string | undefined
  remove(widgetId: string): void
}

/** The element BotCheckStatus renders for the widget. */
export const BOT_WIDGET_ID = 'bot-check-widget'

let widgetScript: Promise<WidgetApi | undefined> | null = null

/** Loads the provider's script once per page (the CSP allows its origin on the pages that solve the check). */
function loadWidgetScript(src: string): Promise<WidgetApi | undefined> {
  widgetScript ??= new Promise((resolve) => {
    const script = document.createElement('script')
    script.src = src
    script.async = true
    script.onload = () => resolve((window as unknown as { turnstile?: WidgetApi }).turnstile)
    script.onerror = () => {
      widgetScript = null
      resolve(undefined)
    }
    document.head.appendChild(script)
  })
  return widgetScript
}

/** One token of the widget: rendered fresh for each submission (a token is spent by one), removed once it answered. */
async function widgetToken(siteKey: string, scriptUrl: string): Promise<string | undefined> {
  const api = await loadWidgetScript(scriptUrl)
  const container = document.getElementById(BOT_WIDGET_ID)
  if (!api || !container) return undefined
  return new Promise((resolve) => {
    const rendered: string[] = []
    const done = (token: string | undefined) => {
      for (const id of rendered.splice(0)) api.remove(id)
      resolve(token)
    }
    const id = api.render(container, { sitekey: siteKey, callback: (token) => done(token), 'error-callback': () => done(undefined), 'expired-callback': () => done(undefined) })
    if (id !== undefined) rendered.push(id)
  })
}

export function useBotProof() {
  const state = ref<BotCheckState>('idle')
  let pending: Promise<string | undefined> | null = null

  async function solve(): Promise<string | undefined> {
    state.value = 'checking'
    const res = await bffFetch('/api/auth/bot-challenge')
    const data = res.body.data as { enabled?: boolean; challenge?: Challenge; provider?: string; siteKey?: string; scriptUrl?: string } | undefined
    if (res.status === 200 && data?.enabled === false) {
      state.value = 'off'
      return undefined
    }
    if (res.status === 200 && data?.provider === 'turnstile') {
      const token = data.siteKey && data.scriptUrl ? await widgetToken(data.siteKey, data.scriptUrl) : undefined
      state.value = token ? 'ready' : 'failed'
      return token
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
