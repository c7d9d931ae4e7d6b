/**
 * What the admin console (pages/admin/**) makes of the BFF's answers: the IAM's /admin guards
 * answer 403 for an account that is not a platform administrator and for a session signed in on
 * someone's behalf; the pages show a sentence for each in the page's language (`admin.` keys of
 * i18n/locales, a failure's `code` through useFailureWords), never the raw body.
 */
import type { Ref } from 'vue'
import { useAuth } from './useAuth'
import { bffFetch, type BffResult } from './useBff'
import { useFailureWords } from './failure-words'
import { useReauthGate } from './useReauthGate'

export type AdminPageState = 'loading' | 'ready' | 'signed-out' | 'not-admin' | 'impersonating' | 'error'

type AdminFailure = { state: Exclude<AdminPageState, 'loading' | 'ready'>; message: string }

/** How a page that only reads reacts to a failed call: which state, and the sentence for `error` (call in setup). */
export function useAdminFailure(): (result: BffResult) => AdminFailure {
  const { t } = useI18n()
  const { describeFailure } = useFailureWords()
  return (result) => {
    if (result.status === 401 || result.body.signedOut) return { state: 'signed-out', message: describeFailure(result) }
    if (result.body.code === 'not_admin') return { state: 'not-admin', message: t('admin.failure.notAdmin') }
    if (result.status === 403 && result.body.impersonated === true) return { state: 'impersonating', message: t('admin.failure.impersonating') }
    return { state: 'error', message: describeFailure(result) }
  }
}

/** A list page's cursors: the cursor of each page seen so far, for "Previous" without asking the server. */
export function usePageCursors() {
  const stack = ref<Array<string | undefined>>([undefined])
  return {
    current: computed(() => stack.value[stack.value.length - 1]),
    page: computed(() => stack.value.length),
    next: (cursor: string) => void stack.value.push(cursor),
    previous: () => void (stack.value.length > 1 && stack.value.pop()),
    reset: () => void (stack.value = [undefined]),
  }
}

/**
 * A searchable list of the admin console (accounts, organizations): the search by a prefix, a
 * page at a time through the IAM's cursor, and the page's state from each answer. Bind `results`
 * to the list (components/AdminSearchList.vue: focus goes to its results heading after each load, so
 * a screen reader reads what changed) and call `start` when the page mounts.
 */
export function useAdminList<Row>(options: {
  /** the BFF list route, e.g. `/api/admin/users` */
  path: string
  /** the array's key in the answer's `data`, e.g. `users` */
  rowsKey: string
  /** the search the page opens with (a page that keeps it in its URL) */
  initialQuery?: string
  /** runs once a new search is set, before it loads (a page that keeps it in its URL) */
  onSearch?: (searched: string) => Promise<unknown>
}) {
  const state = ref<AdminPageState>('loading')
  const error = ref<string | null>(null)
  const query = ref(options.initialQuery ?? '')
  const searched = ref(query.value)
  const rows = ref<Row[]>([]) as Ref<Row[]>
  const next = ref<string | null>(null)
  const cursors = usePageCursors()
  const gate = useReauthGate()
  const results = ref<{ focus(): void } | null>(null)
  const { t } = useI18n()
  const adminFailure = useAdminFailure()

  async function load() {
    error.value = null
    const params = new URLSearchParams({ limit: '20' })
    if (searched.value) params.set('q', searched.value)
    if (cursors.current.value) params.set('cursor', cursors.current.value)
    const result = await gate.guard(() => bffFetch(`${options.path}?${params}`))
    if (!result) {
      state.value = 'error'
      error.value = t('admin.failure.notConfirmed')
      return
    }
    if (result.status !== 200) {
      const failure = adminFailure(result)
      // a failed search keeps the page: the message goes above the results
      if (state.value === 'ready' && failure.state === 'error') return (error.value = failure.message)
      state.value = failure.state
      error.value = failure.message
      return
    }
    const data = result.body.data as Record<string, unknown> & { next: string | null }
    rows.value = data[options.rowsKey] as Row[]
    next.value = data.next
    state.value = 'ready'
  }

  async function search() {
    searched.value = query.value.trim()
    cursors.reset()
    await options.onSearch?.(searched.value)
    await load()
    results.value?.focus()
  }
  async function nextPage() {
    if (!next.value) return
    cursors.next(next.value)
    await load()
    results.value?.focus()
  }
  async function previousPage() {
    cursors.previous()
    await load()
    results.value?.focus()
  }
  const start = useAdminStart(load)

  return { state, error, query, searched, rows, next, cursors, gate, results, search, nextPage, previousPage, start }
}

/**
 * One item of the admin console (an account, an organization): loaded from `path()` into `detail`,
 * with the page's state from the answer. Call `start` when the page mounts and `load` after a change.
 */
export function useAdminDetail<Detail>(options: {
  /** the BFF route of the item, e.g. `/api/admin/users/<id>` */
  path: () => string
  /** the sentence when there is no such item, in the page's language */
  notFound: () => string
}) {
  const state = ref<AdminPageState>('loading')
  const error = ref<string | null>(null)
  const detail = ref<Detail | null>(null) as Ref<Detail | null>
  const gate = useReauthGate()
  const { t } = useI18n()
  const adminFailure = useAdminFailure()

  async function load() {
    const result = await gate.guard(() => bffFetch(options.path()))
    if (!result) {
      state.value = 'error'
      error.value = t('admin.failure.notConfirmed')
      return
    }
    if (result.status === 404 || result.status === 400) {
      state.value = 'error'
      error.value = options.notFound()
      return
    }
    if (result.status !== 200) {
      const failure = adminFailure(result)
      state.value = failure.state
      error.value = failure.message
      return
    }
    detail.value = result.body.data as Detail
    state.value = 'ready'
  }

  /**
   * Reads the item again after a change made on the page: the page stays as it is (with what the
   * change showed once, a new secret), and a failure is only said, in the page's words; null when
   * it was read.
   */
  async function refresh(): Promise<string | null> {
    const result = await gate.guard(() => bffFetch(options.path()))
    if (!result) return t('admin.failure.notConfirmed')
    if (result.status === 404 || result.status === 400) return options.notFound()
    if (result.status !== 200) return adminFailure(result).message
    detail.value = result.body.data as Detail
    return null
  }

  return { state, error, detail, gate, load, refresh, start: useAdminStart(load) }
}

/** What an admin page does when it mounts: signed out, to the sign-in page and back here; else `load`. */
function useAdminStart(load: () => Promise<unknown>): () => Promise<unknown> {
  const auth = useAuth()
  const route = useRoute()
  return async () => {
    const session = await auth.load()
    if (session.status === 'signed-out') return navigateTo(`/login?returnTo=${encodeURIComponent(route.fullPath)}`)
    await load()
  }
}
