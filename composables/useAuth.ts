/**
 * Session state and actions for pages (also for teams building their own pages). The state comes
 * from the BFF (`GET /api/auth/session`), never from a token: the access token is an HttpOnly
 * cookie that page JavaScript cannot read.
 *
 *   const auth = useAuth()
 *   await auth.load()                   // on mount; status: signed-in | signed-out | mfa-pending
 *   const r = await auth.login({ email, password })
 *   if (r.status === 200) navigateTo(safeReturnTo(route.query.returnTo))
 */
import { bffFetch, type BffBody, type BffResult } from './useBff'
import { sessionEndedMessage } from './session-ended'

export type AuthStatus = 'unknown' | 'signed-in' | 'signed-out' | 'mfa-pending'

export interface AuthState {
  status: AuthStatus
  userId: string | null
  email: string | null
  /** false until the address's verification link was used */
  emailVerified: boolean
  name: string | null
  /** the IANA time zone the account's mails use (components/TimeZoneSetting.vue); null when none is known */
  timeZone: string | null
  roles: string[]
  expiresAt: string | null
  /** the MFA notice while status is mfa-pending; when signed-out, why a session this browser had ended */
  message: string | null
  /** when signed-out after a session ended: the code of why (composables/session-ended.ts), for the sign-in page's `?ended=` */
  endedWhy: string | null
  /** a platform administrator signed in on this account's behalf (the banner, components/ImpersonationBanner.vue) */
  impersonating: boolean
  /** that administrator's email, when the gateway noted it */
  impersonatedBy: string | null
  /** the account's picture (components/ProfilePicture.vue): where an <img> loads it from; null for none (initials) */
  picture: AccountPicture | null
}

/** An upload is served by the gateway (GET /api/auth/picture); Gravatar's address is loaded by the browser. */
export interface AccountPicture {
  source: 'upload' | 'gravatar'
  src: string
}

function pictureOf(value: unknown): AccountPicture | null {
  const picture = value as { source?: unknown; src?: unknown } | null | undefined
  if ((picture?.source !== 'upload' && picture?.source !== 'gravatar') || typeof picture.src !== 'string') return null
  return { source: picture.source, src: picture.src }
}

const signedOut = (): AuthState => ({
  status: 'signed-out',
  userId: null,
  email: null,
  emailVerified: false,
  name: null,
  timeZone: null,
  roles: [],
  expiresAt: null,
  message: null,
  endedWhy: null,
  impersonating: false,
  impersonatedBy: null,
  picture: null,
})

/** The auth state for an answer of GET /api/auth/session (server/utils/bff/session-state.ts). */
function stateOfSession(body: BffBody): AuthState {
  if (body.authenticated === true) {
    return {
      status: 'signed-in',
      userId: typeof body.userId === 'string' ? body.userId : null,
      email: typeof body.email === 'string' ? body.email : null,
      emailVerified: body.emailVerified === true,
      name: typeof body.name === 'string' ? body.name : null,
      timeZone: typeof body.timeZone === 'string' ? body.timeZone : null,
      roles: Array.isArray(body.roles) ? (body.roles as string[]) : [],
      expiresAt: typeof body.expiresAt === 'string' ? body.expiresAt : null,
      message: null,
      endedWhy: null,
      impersonating: !!body.impersonatedBy,
      impersonatedBy: typeof (body.impersonatedBy as { email?: unknown } | undefined)?.email === 'string' ? (body.impersonatedBy as { email: string }).email : null,
      picture: pictureOf(body.picture),
    }
  }
  if (body.mfa === true) return { ...signedOut(), status: 'mfa-pending', message: body.message ?? null }
  // a session the sign-in service ended (signed out elsewhere, expired, copied): the page says so, and why
  if (body.ended !== true) return signedOut()
  const why = typeof body.why === 'string' ? body.why : null
  return { ...signedOut(), message: sessionEndedMessage(why), endedWhy: why }
}

export interface SignupInput {
  email: string
  password: string
  confirmedPassword: string
  name: string
  termsConsent: boolean
  rememberUser?: boolean
  /** the solved proof-of-work check (composables/useBotProof.ts), when the IAM asks for one */
  botProof?: string
  /** the token of the organization invitation the person came from: the IAM confirms the address when it was the invited one */
  invitationToken?: string
}

/**
 * Per app (one per page in the browser): the session read on its way, shared by the callers that
 * ask while it is pending (the header and the page mount together: one BFF call, one IAM call),
 * and a generation bumped by every change of the session here, so that an answer which left
 * before a sign-in or sign-out never overwrites what came after it.
 */
const loads = new WeakMap<object, { pending: Promise<AuthState> | null; generation: number }>()

/** The shared auth state and the actions that change it. */
export function useAuth() {
  const event = useRequestEvent()
  // the server may have read the session already (server/middleware/35.signed-in-pages.ts): the
  // page then starts with it, and the browser does not ask again
  const known = event?.context.sessionState as BffBody | undefined
  const state = useState<AuthState>('auth-state', () => (known ? stateOfSession(known) : { ...signedOut(), status: 'unknown' }))
  const hint = useSessionHint()
  const app = useNuxtApp()
  const tracker = loads.get(app) ?? { pending: null, generation: 0 }
  loads.set(app, tracker)

  /**
   * Reads the session from the BFF (refreshing the access token when it is due). A call while a
   * read is pending shares it, unless `fresh` (after a sign-in: the pending answer predates it).
   */
  function load(options: { fresh?: boolean } = {}): Promise<AuthState> {
    if (options.fresh) tracker.generation++
    else if (tracker.pending) return tracker.pending
    const generation = tracker.generation
    const pending = readSession(generation).finally(() => {
      if (tracker.pending === pending) tracker.pending = null
    })
    tracker.pending = pending
    return pending
  }

  /**
   * The session as known, read from the BFF only when nothing is known yet (the header on every
   * page, home and /login). A browser that sent no session cookie with the page is signed out: the
   * BFF would say so without asking the IAM, so it is not asked either.
   */
  function ensureLoaded(): Promise<AuthState> {
    if (state.value.status !== 'unknown') return Promise.resolve(state.value)
    if (hint.value === 'none') {
      state.value = signedOut()
      return Promise.resolve(state.value)
    }
    return load()
  }

  async function readSession(generation: number): Promise<AuthState> {
    const { status, body } = await bffFetch('/api/auth/session')
    if (generation !== tracker.generation) return state.value
    if (status === 200) state.value = stateOfSession(body)
    return state.value
  }

  async function afterSignIn(result: BffResult): Promise<BffResult> {
    if (result.status >= 200 && result.status < 300 && result.body.signedIn) await load({ fresh: true })
    return result
  }

  return {
    state: readonly(state),
    isSignedIn: computed(() => state.value.status === 'signed-in'),
    load,
    ensureLoaded,
    /**
     * POST /api/auth/login; 200 signed in, 401 wrong credentials, 403 `deletionPending` (the right password of an account scheduled for deletion),
     * 400 `bot_check_required` after recent failures (send a solved `botProof`, composables/useBotProof.ts), 429 rate limited.
     */
    login: async (input: { email: string; password: string; rememberUser?: boolean; botProof?: string }) =>
      afterSignIn(
        await bffFetch('/api/auth/login', {
          method: 'POST',
          body: { email: input.email, password: input.password, ...(input.rememberUser ? { rememberUser: 'on' } : {}), ...(input.botProof ? { botProof: input.botProof } : {}) },
        }),
      ),
    /** POST /api/auth/signup; 201 signed in, 400 with `fields`, 409 address taken. */
    signup: async (input: SignupInput) =>
      afterSignIn(
        await bffFetch('/api/auth/signup', {
          method: 'POST',
          body: {
            email: input.email,
            password: input.password,
            confirmedPassword: input.confirmedPassword,
            name: input.name,
            ...(input.termsConsent ? { termsConsent: 'on' } : {}),
            ...(input.rememberUser ? { rememberUser: 'on' } : {}),
            ...(input.botProof ? { botProof: input.botProof } : {}),
            ...(input.invitationToken ? { invitationToken: input.invitationToken } : {}),
          },
        }),
      ),
    /** Sign-up with a passkey, its last step (components/PasskeySignup.vue): 201 signed in; 400 a spent ceremony or an unverified answer; 409 the address has an account now. */
    passkeySignupFinish: async (ceremonyId: string, credential: unknown, rememberUser: boolean) =>
      afterSignIn(await bffFetch('/api/auth/passkey-signup/finish', { method: 'POST', body: { ceremonyId, credential, ...(rememberUser ? { rememberUser: 'on' } : {}) } })),
    /** POST /api/auth/logout; always ends the browser's session. */
    logout: async () => {
      const result = await bffFetch('/api/auth/logout', { method: 'POST' })
      tracker.generation++
      state.value = signedOut()
      return result
    },
    /** Mails a confirmation link + code for a protected action (POST /api/auth/custom-mfa/:reason). */
    requestConfirmation: (reason: string, note?: string) =>
      bffFetch(`/api/auth/custom-mfa/${encodeURIComponent(reason)}`, { method: 'POST', body: note ? { note } : {} }),
    /** The step after the password for an account with a second factor: 200 signed in, 401 wrong code or `restart`. */
    secondFactor: async (challenge: string, code: string) => afterSignIn(await bffFetch('/api/auth/second-factor', { method: 'POST', body: { challenge, code } })),
    /** Completes a confirmation this session started with a TOTP or recovery code instead of the emailed code. */
    confirmWithSecondFactor: (reason: string, code: string) => bffFetch('/api/auth/confirm/second-factor', { method: 'POST', body: { reason, code } }),
    /** Sends the MFA code of an adaptive-MFA link; 200 signs the browser in again. */
    verifyMfa: async (linkQuery: string, code: string) => afterSignIn(await bffFetch(`/api/auth/mfa?${linkQuery}`, { method: 'POST', body: { code } })),
    /** Sign-in by email, the mailed code typed with its address (any browser): 200 signed in or a second-factor challenge, 401 wrong code, 429 locked. */
    emailSignInCode: async (email: string, code: string) => afterSignIn(await bffFetch('/api/auth/email-sign-in/code', { method: 'POST', body: { email, code } })),
    /** Sign-in by email, the mailed link (only in the browser that asked): 200 signed in or a challenge, 403 `email_sign_in_other_device`, 400 a dead link. */
    emailSignInLink: async (linkQuery: string) => afterSignIn(await bffFetch(`/api/auth/email-sign-in/link?${linkQuery}`, { method: 'POST' })),
    /** Sends the emailed code of the challenge waiting on this browser's session, typed in place (no link); 200 signs it in again. */
    verifyMfaCode: async (code: string) => afterSignIn(await bffFetch('/api/auth/mfa/code', { method: 'POST', body: { code } })),
  }
}
